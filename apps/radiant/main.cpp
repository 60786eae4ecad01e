// `radiant`: train, render and inspect 3D Gaussian Splatting scenes.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"

namespace {

// Levenshtein distance, for suggesting the flag a typo meant.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

// "did you mean --iterations?" for each unknown flag, from the names the chosen command (and the app) take.
std::string suggestions(const CLI::App& app, const std::vector<std::string>& unknown) {
    std::vector<std::string> known;
    std::vector<const CLI::App*> apps{&app};
    for (const CLI::App* sub : app.get_subcommands()) apps.push_back(sub);
    for (const CLI::App* a : apps)
        for (const CLI::Option* o : a->get_options())
            for (const std::string& n : o->get_lnames()) known.push_back("--" + n);
    std::string out;
    for (const std::string& u : unknown) {
        if (u.rfind("--", 0) != 0) continue;
        const std::string flag = u.substr(0, u.find('='));
        std::string best;
        std::size_t best_d = 4;  // farther than three edits is no typo
        for (const std::string& k : known)
            if (const std::size_t d = edit_distance(flag, k); d < best_d) best_d = d, best = k;
        if (!best.empty()) out += "\n" + flag + ": did you mean " + best + "?";
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"radiant — train, render and inspect 3D Gaussian Splatting scenes"};
    app.require_subcommand(1);
    app.allow_extras(false);
    std::string log_level = "info";
    app.add_option("--log-level", log_level, "error, warn, info or debug")->capture_default_str();
    radiant::app::add_info_command(app);
    radiant::app::add_render_command(app);
    radiant::app::add_demo_command(app);
    radiant::app::add_train_command(app, std::vector<std::string>(argv, argv + argc));
    radiant::app::add_bench_command(app);
    radiant::app::add_convert_command(app);
    radiant::app::add_view_command(app);
    radiant::app::add_prepare_command(app);
    // --log-level may come after the subcommand too.
    for (CLI::App* sub : app.get_subcommands({})) sub->fallthrough();
    app.parse_complete_callback([&] { radiant::set_log_level(radiant::parse_log_level(log_level)); });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ExtrasError& e) {
        // CLI11 lists them after a colon: "The following arguments were not expected: --itrations 5".
        std::vector<std::string> extras;
        const std::string what = e.what();
        std::size_t p = what.find(": ");
        while (p != std::string::npos && p + 1 < what.size()) {
            const std::size_t start = what.find_first_not_of(' ', p + 1);
            if (start == std::string::npos) break;
            p = what.find(' ', start);
            extras.push_back(what.substr(start, p == std::string::npos ? std::string::npos : p - start));
        }
        std::fprintf(stderr, "error: %s%s\n", e.what(), suggestions(app, extras).c_str());
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::filesystem::filesystem_error& e) {
        // In radiant's voice: the path, then what the system said.
        std::fprintf(stderr, "error: %s: %s\n", e.path1().string().c_str(), e.code().message().c_str());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr,
                     "error: the host ran out of memory; train on smaller images (--downscale 2) or cap the "
                     "Gaussians (--max-gaussians)\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
