#include "radiant/train/trainer.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/camera_json.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "radiant/io/image_io.hpp"
#include "radiant/io/ply.hpp"
#include "radiant/io/scene_formats.hpp"
#include "radiant/train/backend.hpp"
#include "radiant/train/divergence.hpp"
#include "radiant/train/initialize.hpp"
#include "radiant/train/loss.hpp"
#include "radiant/train/memory_cap.hpp"
#include "radiant/train/pose_fit.hpp"
#include "radiant/train/pose_opt.hpp"
#include "radiant/train/run_profile.hpp"
#include "radiant/train/tile_tuner.hpp"

namespace radiant {
namespace fs = std::filesystem;
namespace {

// Set by SIGINT and SIGTERM; the only process-wide state a signal handler may touch.
std::atomic<bool> g_interrupted{false};
void on_signal(int) {
    g_interrupted = true;
}

void throw_if_interrupted(const char* when) {
    if (g_interrupted) throw Interrupted(fmt::format("interrupted {}; nothing was written", when));
}

// What a run leaves in its folder (besides renders/): --force clears them before a new run there.
constexpr const char* kRunFiles[] = {"scene.ply",   "scene.spz",    "scene.splat", "scene.compressed.ply",
                                     "config.json", "metrics.json", "report.html", "checkpoint.bin",
                                     "eval.json",   "cameras.json"};

std::string rng_text(const std::mt19937_64& rng) {
    std::ostringstream s;
    s << rng;
    return s.str();
}
void rng_from_text(std::mt19937_64& rng, const std::string& text) {
    std::istringstream s(text);
    s >> rng;
}

std::string format_duration(double s) {
    if (!std::isfinite(s) || s < 0) return "?";
    const long t = long(s + 0.5);
    return t >= 3600 ? fmt::format("{}h{:02d}m", t / 3600, t / 60 % 60)
                     : fmt::format("{}m{:02d}s", t / 60, t % 60);
}

// The live progress line: step, loss, PSNR, Gaussians, rate and ETA; plain lines when not on a TTY.
class TrainProgress {
  public:
    TrainProgress(long total, long log_every) : total_(total), every_(log_every), tty_(::isatty(2) == 1) {}
    void update(long step, double loss, double psnr, std::size_t gaussians, double rate) {
        const auto now = std::chrono::steady_clock::now();
        const bool last = step == total_;
        if (tty_ && !last && now - last_ < std::chrono::milliseconds(200)) return;
        if (!tty_ && !last && step % std::max(every_, total_ / 20) != 0) return;
        last_ = now;
        const std::string line = fmt::format(
            "step {}/{}  loss {:.4f}  PSNR {:.2f}  Gaussians {}  {:.1f} steps/s  ETA {}", step, total_, loss,
            psnr, gaussians, rate, format_duration(double(total_ - step) / std::max(rate, 1e-9)));
        if (tty_)
            std::fprintf(stderr, "\r%s\x1b[K%s", line.c_str(), last ? "\n" : "");
        else
            log_info("{}", line);
    }
    void break_line() {
        if (tty_) std::fprintf(stderr, "\n");
    }

  private:
    long total_, every_;
    bool tty_;
    std::chrono::steady_clock::time_point last_{};
};

struct Evaluation {
    std::vector<ViewMetrics> views;
    std::vector<Image<float>> renders;
    double psnr = 0, ssim = 0;
    double pose_turn_deg = 0, pose_move = 0;  // with a pose fit: mean turn and move (fraction of the extent)
};

// How test views are scored: as the scene renders them, or with a transform fitted on each image's left
// half and the right half scored (train/appearance_fit.hpp); at the given pose, or at one fitted to the scene
// first (train/pose_fit.hpp).
struct EvalProtocol {
    EvalAppearance appearance = EvalAppearance::identity;
    const std::vector<TargetImage>* images = nullptr;
    int pose_fit = 0;  // measuring steps fitting each view's pose (0: the given pose)
    double lambda_ssim = 0.2, extent = 1;
};

EvalProtocol eval_protocol(const TrainConfig& c, const std::vector<TargetImage>& images, double extent) {
    return {c.eval_appearance, &images, c.eval_pose_fit, c.lambda_ssim, extent};
}

ViewScore fit_left_half_score(const TargetImage& t, Image<float>& render) {
    const Image<float> target = to_float(t.rgb);
    const std::vector<float> params = fit_affine_left_half(render, target, &t.mask);
    render = apply_appearance(AppearanceModel::exposure, params.data(), render);
    const Image<std::uint8_t> right = right_half_mask(t.rgb.width, t.rgb.height, &t.mask);
    return {psnr(render, target, &right), ssim(render, target, &right)};
}

Evaluation evaluate(Backend& backend, const Dataset& ds, const std::vector<std::size_t>& ids,
                    const RenderSettings& settings, bool keep_renders, const EvalProtocol& protocol) {
    Evaluation e;
    const bool fit = protocol.appearance == EvalAppearance::fit_left_half;
    for (std::size_t i : ids) {
        Image<float> r;
        Camera camera = ds.views[i].camera;
        if (protocol.pose_fit > 0) {
            StepInput in;
            in.image = i;
            in.settings = settings;
            in.lambda_ssim = protocol.lambda_ssim;
            const std::array<double, 6> d =
                fit_pose(backend, in, camera, {}, PoseFit{protocol.pose_fit, 0}, protocol.extent);
            camera = corrected_camera(camera, d);
            const CorrectionSize size = correction_size(d);
            e.pose_turn_deg += size.turn_deg / double(ids.size());
            e.pose_move += size.move / protocol.extent / double(ids.size());
        }
        ViewScore score = backend.evaluate(camera, settings, i, keep_renders || fit ? &r : nullptr);
        if (fit) score = fit_left_half_score((*protocol.images)[i], r);
        ViewMetrics m{ds.views[i].name, score.psnr, score.ssim};
        e.psnr += m.psnr;
        e.ssim += m.ssim;
        e.views.push_back(m);
        if (keep_renders) e.renders.push_back(std::move(r));
    }
    if (!ids.empty()) {
        e.psnr /= double(ids.size());
        e.ssim /= double(ids.size());
    }
    return e;
}

// A run's saved config (its config.json or its checkpoint's copy). Runs written before `undistort` existed
// trained distorted photos at their own intrinsics: a resumed or re-evaluated one keeps those cameras (now
// with the border masked) instead of switching to crop's.
TrainConfig saved_config(const std::string& config_json, const std::string& name) {
    TrainConfig base;
    if (!config_sets(config_json, "undistort")) base.undistort = Undistort::mask;
    return config_from_json(config_json, name, base);
}

}  // namespace

void clear_run(const fs::path& out) {
    std::error_code ec;
    std::size_t removed = 0;
    for (const char* f : kRunFiles) removed += fs::remove(out / f, ec) ? 1 : 0;
    removed += fs::remove_all(out / "renders", ec) > 0 ? 1 : 0;
    if (removed > 0) log_info("--force: removed the earlier run's outputs in {}", out.string());
}

// A new run into a folder that holds one would replace it: refused unless asked for (`overwrite`).
void refuse_to_replace_a_run(const fs::path& out, bool overwrite) {
    std::error_code ec;
    std::string found;
    for (const char* f : {"checkpoint.bin", "scene.ply", "metrics.json"})
        if (fs::exists(out / f, ec)) found += fmt::format("{}{}", found.empty() ? "" : ", ", f);
    if (found.empty() || overwrite) return;
    throw Error(fmt::format(
        "{} holds a run ({}): continue it with --resume {}, train into another folder with -o, or replace it "
        "with --force",
        out.string(), found, out.string()));
}

DatasetOptions dataset_options(const TrainConfig& c) {
    DatasetOptions o;
    o.downscale = c.downscale;
    o.eval = c.eval;
    o.test_every = c.test_every;
    // `ray` traces each pixel through the lens model, so it trains on the images as they were taken.
    o.undistort = c.render.shading == Shading::ewa ? c.undistort : Undistort::none;
    o.resample = c.resample;
    o.images = c.images;
    o.masks = c.masks;
    o.alpha = c.alpha;
    const double b = c.white_background ? 1.0 : 0.0;
    o.background = {b, b, b};
    return o;
}

RenderSettings eval_settings(const TrainConfig& c, int sh_degree) {
    RenderSettings s = c.render;
    s.sh_degree = sh_degree;
    const double b = c.white_background ? 1.0 : 0.0;
    s.background = {b, b, b};
    return s;
}

Scene initial_run_scene(const Dataset& ds, const TrainConfig& c) {
    InitOptions init;
    init.sh_degree = c.sh_degree;
    init.random_points = c.init_random_points;
    init.initial_opacity = c.init_opacity;
    init.initial_scale = c.init_scale;
    init.seed = std::uint32_t(c.seed);
    Scene scene = initial_scene(ds, init);
    if (c.strategy == "mcmc" && scene.size() > c.mcmc.max_gaussians) {
        log_warn("{} initial points exceed --max-gaussians {}; keeping the first {}", scene.size(),
                 c.mcmc.max_gaussians, c.mcmc.max_gaussians);
        scene.resize(c.mcmc.max_gaussians);
    }
    return scene;
}

std::string dataset_title(const std::string& data) {
    fs::path p = fs::path(data).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    const std::string name = p.filename().string();
    if ((name == "data" || name == "dataset" || name == "." || name.empty()) && p.has_parent_path() &&
        !p.parent_path().filename().empty())
        return p.parent_path().filename().string();
    return name.empty() ? data : name;
}

namespace {

// File names for the views' renders, unique across splits ("test/r_0" and "train/r_0").
std::vector<std::string> render_names(const Dataset& ds, const std::vector<std::size_t>& ids) {
    std::vector<std::string> names;
    for (std::size_t i : ids) names.push_back(ds.views[i].name);
    return unique_file_stems(names);
}

void write_outputs(const TrainConfig& c, Backend& backend, const Dataset& ds,
                   const std::vector<TargetImage>& images, const std::vector<std::size_t>& eval_ids,
                   bool eval_is_test, const Checkpoint& ck, const RunProfile& profile, TrainResult& result) {
    const fs::path out(c.output);
    // Adam finds non-finite values only among the Gaussians of its scope (under visible_sh, an unseen
    // Gaussian's SH are not read): one scan of everything before the scene is scored and written.
    if (const Backend::NonFinite removed = backend.remove_non_finite(); removed.gaussians > 0)
        log_warn("removed {} Gaussians with non-finite parameters before writing the scene ({} values)",
                 removed.gaussians, removed.values);
    const Evaluation ev = evaluate(backend, ds, eval_ids, eval_settings(c, c.sh_degree), true,
                                   eval_protocol(c, images, ds.extent));
    result.test_psnr = ev.psnr;
    result.test_ssim = ev.ssim;
    result.views = ev.views;
    result.gaussians = backend.size();
    const Scene scene = backend.scene();
    write_ply((out / "scene.ply").string(), scene);
    result.outputs = {(out / "scene.ply").string()};
    for (const std::string& ext : export_extensions(c.export_formats)) {
        const std::string path = (out / ("scene." + ext)).string();
        result.outputs.push_back(path);
        if (const FormatFit fit = write_scene(path, scene); fit.clamped > 0)
            log_warn("{}: {} {} clamped", path, fit.clamped, fit.what);
        const QuantisationError e = quantisation_error(scene, read_scene(path));
        log_info("exported {} (position error ≤ {:.2g}, colour error ≤ {:.2g})", path, e.position, e.colour);
    }
    fs::create_directories(out / "renders");
    ReportData report;
    const std::vector<std::string> names = render_names(ds, eval_ids);
    for (std::size_t k = 0; k < eval_ids.size(); ++k) {
        const TargetImage& t = images[eval_ids[k]];
        const Image<std::uint8_t> cmp = comparison_image(to_float(t.rgb), ev.renders[k], &t.mask);
        const std::string& name = names[k];
        write_png((out / "renders" / (name + ".png")).string(), cmp);
        const int tw = std::min(cmp.width, 720);
        report.thumbnails.push_back(
            encode_png(resize_area(cmp, tw, std::max(1, cmp.height * tw / cmp.width)), name));
    }
    nlohmann::json m;
    m["psnr"] = ev.psnr;
    m["ssim"] = ev.ssim;
    m["eval_views"] = eval_is_test ? "test" : "train (no test split: every 8th training view)";
    m["eval_appearance"] = to_string(c.eval_appearance);
    if (c.eval_pose_fit > 0)
        m["eval_pose_fit"] = {{"steps", c.eval_pose_fit},
                              {"mean_turn_deg", ev.pose_turn_deg},
                              {"mean_move_fraction_of_extent", ev.pose_move}};
    m["gaussians"] = backend.size();
    m["steps"] = ck.step;
    m["train_seconds"] = ck.seconds;
    m["peak_memory_bytes"] = backend.memory().peak;
    m["backend"] = backend.name();
    m["views"] = nlohmann::json::array();
    for (const ViewMetrics& v : ev.views)
        m["views"].push_back({{"name", v.name}, {"psnr", v.psnr}, {"ssim", v.ssim}});
    if (profile.steps_timed() > 0) m["profile"] = nlohmann::json::parse(profile.json());
    m["evals"] = nlohmann::json::array();
    for (const EvalPoint& e : ck.evals)
        m["evals"].push_back({{"step", e.step}, {"psnr", e.psnr}, {"ssim", e.ssim}});
    result.metrics_json = m.dump(2) + "\n";
    write_file_atomic((out / "metrics.json").string(), result.metrics_json);

    report.title = fmt::format("radiant — {}", dataset_title(c.data));
    const Camera& cam = ds.views.front().camera;
    report.summary = {
        {"dataset", fmt::format("{} ({})", c.data, ds.format)},
        {"images", fmt::format("{}x{}{}, {} train / {} test views", cam.width, cam.height,
                               ds.scale < 1 ? fmt::format(" (1/{:.3g} of the stored size)", 1 / ds.scale)
                                            : std::string(),
                               ds.train_count(), ds.test_count())},
        {"backend", backend.name()},
        {"steps", std::to_string(ck.step)},
        {"Gaussians", std::to_string(backend.size())},
        {"training time", format_duration(ck.seconds)},
        {eval_is_test ? "test PSNR" : "train-view PSNR",
         fmt::format(
             "{:.2f} dB{}{}", ev.psnr,
             c.eval_appearance == EvalAppearance::fit_left_half ? " (right halves, fit on the left)" : "",
             c.eval_pose_fit > 0
                 ? fmt::format(" (poses fitted: {:.3f}° and {:.3f} % of the extent on average)",
                               ev.pose_turn_deg, 100 * ev.pose_move)
                 : std::string())},
        {eval_is_test ? "test SSIM" : "train-view SSIM", fmt::format("{:.4f}", ev.ssim)},
        {"strategy", c.strategy}};
    report.history = ck.history;
    report.evals = ck.evals;
    report.views = ev.views;
    report.profile = profile.step_stages();
    report.profile_note = profile.lines();
    result.report_path = (out / "report.html").string();
    write_file_atomic(result.report_path, report_html(report));
    for (const char* f : {"metrics.json", "report.html", "config.json", "cameras.json", "checkpoint.bin"})
        result.outputs.push_back((out / f).string());
    result.outputs.push_back(
        fmt::format("{}/ ({} comparison images)", (out / "renders").string(), eval_ids.size()));
}

// An allocation failed or the budget refused one mid-run: what happened, where, and what to change.
std::string out_of_memory_advice(const std::string& what, long step, std::size_t gaussians, long saved_step,
                                 const std::string& ck_path) {
    const std::size_t suggest = std::max<std::size_t>(1000, gaussians / 5 * 4 / 1000 * 1000);
    return fmt::format(
        "{}, at step {} with {} Gaussians. Cap them with --max-gaussians {} (or set a smaller "
        "--memory-budget), or train on smaller images with --downscale 2. No outputs were written; {}",
        what, step, gaussians, suggest,
        saved_step >= 0 ? fmt::format("the last checkpoint, step {}, is {}", saved_step, ck_path)
                        : std::string("no checkpoint was written"));
}

}  // namespace

bool interrupt_requested() {
    return g_interrupted.load();
}

void install_interrupt_handler() {
    g_interrupted = false;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);  // what cluster schedulers send before they kill
}

namespace {

// The run's cameras.json with the training views' poses as refined, and how far they moved.
void write_corrected_cameras(const fs::path& out, const Dataset& ds,
                             const std::vector<std::size_t>& train_ids, const PoseState& poses) {
    std::vector<Camera> cameras = ds.named_cameras();
    double rot_sum = 0, rot_max = 0, trans_sum = 0, trans_max = 0;
    for (const std::size_t i : train_ids) {
        cameras[i] = corrected_camera(cameras[i], poses.delta[i]);
        const CorrectionSize size = correction_size(poses.delta[i]);
        const double rot = size.turn_deg, trans = size.move / ds.extent;
        rot_sum += rot;
        trans_sum += trans;
        rot_max = std::max(rot_max, rot);
        trans_max = std::max(trans_max, trans);
    }
    write_cameras_json((out / "cameras.json").string(), cameras, ds.splits());
    const double n = double(train_ids.size());
    log_info(
        "pose refinement: the training cameras turned by {:.3f}° on average ({:.3f}° at most) and moved by "
        "{:.3f} % of the scene's extent ({:.3f} % at most); cameras.json holds the refined poses",
        rot_sum / n, rot_max, 100 * trans_sum / n, 100 * trans_max);
}

// A new run (resume = false) or a resumed one, from its checkpoint. Everything is checked and loaded
// before the first file is written, so a run that cannot start leaves the folder as it was.
TrainResult run_training(TrainConfig c, Checkpoint ck, bool resume, const TrainHooks& hooks) {
    validate(c);
    const fs::path out(c.output);
    const std::string ck_path = (out / "checkpoint.bin").string();
    if (!resume) refuse_to_replace_a_run(out, c.overwrite);
    throw_if_interrupted("before training started");

    const Dataset ds = open_dataset(c.data, dataset_options(c));
    log_info("{}: {} ({} train, {} test views, {}x{})", c.data, ds.format, ds.train_count(), ds.test_count(),
             ds.views.front().camera.width, ds.views.front().camera.height);
    std::vector<TargetImage> images = load_images(ds, 0, [] { return g_interrupted.load(); });
    if (hooks.on_images) hooks.on_images(images);
    if (hooks.on_dataset) hooks.on_dataset(ds, eval_settings(c, c.sh_degree));
    std::vector<std::size_t> train_ids, test_ids;
    for (std::size_t i = 0; i < ds.views.size(); ++i) (ds.views[i].test ? test_ids : train_ids).push_back(i);
    if (train_ids.empty()) throw Error(fmt::format("{}: no training views", c.data));
    const bool has_test = !test_ids.empty();
    std::vector<std::size_t> eval_ids = test_ids;
    if (!has_test)
        for (std::size_t k = 0; k < train_ids.size(); k += 8) eval_ids.push_back(train_ids[k]);

    std::unique_ptr<Backend> backend = make_backend(c.backend);
    backend->set_memory_budget(std::size_t(c.memory_budget_gib * 1024 * 1024 * 1024));
    backend->set_images(images);
    std::mt19937_64 view_rng(c.seed), bg_rng(c.seed + 1), densify_rng(c.seed + 2);
    if (resume &&
        (c.pose.enabled == ck.poses.empty() || (c.pose.enabled && ck.poses.images() != ds.views.size())))
        throw IoError(ck_path, fmt::format("its pose corrections ({} images) do not match the run's settings "
                                           "(pose_opt {}) and dataset ({} images)",
                                           ck.poses.images(), c.pose.enabled, ds.views.size()));
    if (resume) {
        const AppearanceState& a = ck.state.appearance;
        if (a.model != c.appearance.model ||
            (a.model != AppearanceModel::off && a.images() != ds.views.size()))
            throw IoError(
                ck_path,
                fmt::format("its appearance ({}, {} images) does not match the run's settings "
                            "({}) and dataset ({} images)",
                            to_string(a.model), a.images(), to_string(c.appearance.model), ds.views.size()));
        backend->load(ck.state);
        rng_from_text(view_rng, ck.view_rng);
        rng_from_text(bg_rng, ck.background_rng);
        rng_from_text(densify_rng, ck.densify_rng);
    } else {
        TrainState s;
        s.params = initial_run_scene(ds, c);
        s.adam.reset_like(s.params);
        s.stats.reset(s.params.size());
        s.appearance = AppearanceState::identity(c.appearance.model, ds.views.size());
        backend->load(s);
        if (c.pose.enabled) ck.poses = PoseState::zero(ds.views.size());
    }
    throw_if_interrupted("while initialising");
    // Everything is in place: only now is the folder written.
    if (!resume && c.overwrite) clear_run(out);
    fs::create_directories(out);
    write_file_atomic((out / "config.json").string(), config_to_json(c));
    // Every view's camera as trained, with its split: what `radiant render --views` and `--orbit` use.
    write_cameras_json((out / "cameras.json").string(), ds.named_cameras(), ds.splits());
    ck.config_json = config_to_json(c);
    log_info("training {} Gaussians for {} steps on the {} backend ({} strategy)", backend->size(), c.steps,
             backend->name(), c.strategy);

    // Views in a fresh random order each epoch.
    auto next_view = [&]() {
        if (ck.view_cursor >= ck.view_order.size()) {
            ck.view_order.assign(train_ids.size(), 0);
            std::iota(ck.view_order.begin(), ck.view_order.end(), 0);
            std::shuffle(ck.view_order.begin(), ck.view_order.end(), view_rng);
            ck.view_cursor = 0;
        }
        return train_ids[std::size_t(ck.view_order[ck.view_cursor++])];
    };
    long saved_step = resume ? ck.step : -1;
    auto save = [&]() {
        ck.state = backend->save();
        ck.view_rng = rng_text(view_rng);
        ck.background_rng = rng_text(bg_rng);
        ck.densify_rng = rng_text(densify_rng);
        write_checkpoint(ck_path, ck);
        saved_step = ck.step;
    };

    TrainResult result;
    TrainProgress progress(c.steps, c.log_every);
    const auto t0 = std::chrono::steady_clock::now();
    const double seconds_before = ck.seconds;
    const long first_step = ck.step + 1;
    // Time that is not training: evaluations along the way, and a viewer holding the run (pause).
    double loss_sum = 0, psnr_sum = 0, excluded_seconds = 0, recent_loss = 0, recent_psnr = 0;
    long period_steps = 0;
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    const double fixed_bg = c.white_background ? 1.0 : 0.0;
    long guard_warned_at = -1;
    std::size_t bad_grads = 0, rejected = 0;
    DivergenceWatch watch(DivergenceRule{50, 2.0, c.diverge_patience});
    RunProfile profile(c.profile_every);
    // The clock around what is not a step (densification, evaluation), when profiling.
    auto timed = [&](auto&& work, void (RunProfile::*add)(double)) {
        if (!profile.enabled()) return work();
        const auto w0 = std::chrono::steady_clock::now();
        auto r = work();
        (profile.*add)(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
        return r;
    };
    MemoryCap memory_cap;
    bool densified = false, cap_warned = false;
    const std::vector<ResolutionStage> resolution = parse_resolution_schedule(c.resolution_schedule);
    long step = ck.step + 1;
    std::vector<const Camera*> given_cameras;
    for (const auto& v : ds.views) given_cameras.push_back(&v.camera);
    for (const ResolutionStage& s : resolution)
        if (step < s.until) log_info("training at 1/{} of the resolution before step {}", s.factor, s.until);
    // The CPU backend keeps the configured tiles: its runs are reproducible bit for bit, and a choice made
    // by timing would break that (the backward's sums run tile by tile).
    const bool tune_tiles = c.auto_tile_size && backend->name() == "cuda";
    TileTuner tiles(c.render.tile_size);
    std::size_t last_pairs = 0;  // tile pairs of the last step with 16-pixel tiles
    try {
        for (; step <= c.steps; ++step) {
            const std::size_t view = next_view();
            StepInput in;
            in.camera = &ds.views[view].camera;
            Camera corrected;  // the view's camera with its learned pose correction (--pose-opt)
            const bool pose_learns = c.pose.enabled && step > c.pose.start;
            if (c.pose.enabled) {
                corrected = corrected_camera(ds.views[view].camera, ck.poses.delta[view]);
                in.camera = &corrected;
                in.camera_grads = pose_learns;
            }
            in.image = view;
            in.settings = c.render;
            in.settings.sh_degree = active_sh_degree(step, c.sh_degree, c.sh_interval);
            in.settings.background = {fixed_bg, fixed_bg, fixed_bg};
            if (c.random_background) in.settings.background = {uni(bg_rng), uni(bg_rng), uni(bg_rng)};
            in.lr = learning_rates(c.lr, ds.extent, step, c.steps);
            in.lambda_ssim = c.lambda_ssim;
            in.adam.scope = c.adam_scope;
            in.resolution_factor = resolution_factor(resolution, step);
            in.appearance = {appearance_lr(c.appearance, step, c.steps), c.appearance.reg()};
            if (c.strategy == "mcmc") {
                in.opacity_reg = c.mcmc.opacity_reg;
                in.scale_reg = c.mcmc.scale_reg;
            }
            in.profile = profile.wants(step);
            if (tune_tiles) {
                // 8-pixel tiles make at most 4× the pairs (measured 2.1–3.2×) at about 26 bytes each
                // (bench/RESULTS.md): try them only where that fits beside what the run holds.
                const MemoryUse m = backend->memory();
                const bool small_fits = m.budget == 0 || m.held + 4 * last_pairs * 26 < m.budget;
                in.settings.tile_size = tiles.choose(in.camera->width / in.resolution_factor,
                                                     in.camera->height / in.resolution_factor, small_fits);
            }
            if (hooks.before_step) hooks.before_step(step, *backend);
            const auto step_start = std::chrono::steady_clock::now();
            const StepStats st = backend->step(in);
            if (tune_tiles) {
                tiles.record(
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count());
                if (in.settings.tile_size == 16) last_pairs = st.tile_pairs;
            }
            if (pose_learns) {
                pose_update(ck.poses, view, st.camera_rot, st.camera_trans, pose_lr(c.pose, step, c.steps),
                            ds.extent, c.pose);
                remove_common_motion(ck.poses, given_cameras, train_ids);
                if (c.pose.track_every > 0 && step % c.pose.track_every == 0) {
                    // Each training view's correction fitted alone to the scene as it now stands: the
                    // scene's compromise between inconsistent poses pulls each view towards agreement,
                    // faster than the one update an epoch gives.
                    const PoseFit fit{c.pose.track_iters, c.pose.reg};
                    for (const std::size_t v : train_ids) {
                        StepInput t = in;
                        t.image = v;
                        ck.poses.delta[v] =
                            fit_pose(*backend, t, ds.views[v].camera, ck.poses.delta[v], fit, ds.extent);
                    }
                    remove_common_motion(ck.poses, given_cameras, train_ids);
                    // Every camera turned alike in its own frame, with the scene shifted to match, changes
                    // the images only through parallax: the rounds' long steps drift along it unless it is
                    // held (the given poses are taken as right on average). Only the rounds: held at every
                    // step too, the GPU pose test ended 0.055° from the true poses, against 0.050° with the
                    // steps between rounds free (bench/RESULTS.md, twenty-sixth session).
                    remove_mean_turn(ck.poses, train_ids);
                }
            }
            if (in.profile) profile.add_step(st.timings);
            if (const std::string why = watch.add(step, st.loss); !why.empty()) {
                progress.break_line();
                throw Error(fmt::format(
                    "training diverged: {}. No outputs were written; {}. Try lower learning "
                    "rates (the lr_* keys of --config) or check the camera poses",
                    why,
                    saved_step >= 0 ? fmt::format("the last checkpoint, step {}, is {}", saved_step, ck_path)
                                    : std::string("no checkpoint was written")));
            }
            if (st.non_finite_params > 0) {
                // Made non-finite outside Adam (a fault, an overflow in densification or noise); not drawn
                // this step (project_ewa_gaussian culls them), removed now so they never reach an output.
                // Adam saw only the values of its scope: the scan counts them all.
                const Backend::NonFinite removed = backend->remove_non_finite();
                progress.break_line();
                log_warn("step {}: removed {} Gaussians with non-finite parameters ({} values)", step,
                         removed.gaussians, removed.values);
            }
            bad_grads += st.non_finite_grads;
            rejected += st.rejected_updates;
            if (bad_grads + rejected > 0 && (guard_warned_at < 0 || step - guard_warned_at >= c.log_every)) {
                // Those elements keep their last finite values; said at most once per log period so a
                // persistent fault does not flood the log.
                progress.break_line();
                log_warn(
                    "step {}: {} non-finite gradient values taken as 0 and {} updates rejected as non-finite "
                    "since the last warning (those values keep their last finite state)",
                    step, bad_grads, rejected);
                guard_warned_at = step;
                bad_grads = rejected = 0;
            }
            loss_sum += st.loss;
            psnr_sum += st.psnr;
            ++period_steps;

            if (c.strategy == "default") {
                AdcConfig a = c.adc;
                if (step < a.stop && step > a.start && step % a.interval == 0) {
                    // The peak only grows and the count only changes when densifying: observing here
                    // suffices.
                    memory_cap.observe(backend->memory(), backend->size(), densified);
                    const std::size_t before = backend->size();
                    a.max_gaussians = min_cap(c.adc.max_gaussians, memory_cap.max_gaussians());
                    const DensifyCounts n =
                        timed([&] { return backend->densify_adc(a, ds.extent, step, densify_rng()); },
                              &RunProfile::add_densify);
                    densified = true;
                    log_debug("step {}: densify {} → {} (clone {}, split {}, prune {})", step, before,
                              backend->size(), n.clone, n.split, n.prune);
                    if (n.capped && !cap_warned) {
                        progress.break_line();
                        log_warn(
                            "step {}: {} Gaussians reached the cap of {} ({}); from now on only those with "
                            "the largest gradients are densified",
                            step, backend->size(), a.max_gaussians,
                            a.max_gaussians == c.adc.max_gaussians ? "--max-gaussians"
                                                                   : "what the memory budget holds");
                        cap_warned = true;
                    }
                }
                // An opacity reset needs steps to recover from: none in the last reset_every / 2 steps of a
                // run (a 3000-step run would otherwise end on the reset Inria 3DGS does at step 3000).
                if (step < a.stop && a.reset_every > 0 && step % a.reset_every == 0 &&
                    c.steps - step >= a.reset_every / 2)
                    backend->reset_opacity(0.01);
            } else {
                McmcConfig m = c.mcmc;
                if (step < m.stop && step > m.start && step % m.interval == 0) {
                    memory_cap.observe(backend->memory(), backend->size(), densified);
                    const std::size_t fits = memory_cap.max_gaussians();
                    if (fits > 0 && fits < m.max_gaussians) {
                        if (!cap_warned) {
                            progress.break_line();
                            log_warn(
                                "step {}: the memory budget holds about {} Gaussians, fewer than the MCMC "
                                "budget of {}; growing to {} at most",
                                step, fits, m.max_gaussians, fits);
                            cap_warned = true;
                        }
                        m.max_gaussians = fits;
                    }
                    const DensifyCounts n = timed([&] { return backend->densify_mcmc(m, densify_rng()); },
                                                  &RunProfile::add_densify);
                    densified = true;
                    log_debug("step {}: relocate {}, add {} → {}", step, n.relocate, n.add, backend->size());
                }
                backend->add_noise(m.noise_lr * in.lr.means, densify_rng());
            }

            // Training time, without the time spent on evaluations along the way.
            const double elapsed =
                seconds_before +
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() -
                excluded_seconds;
            ck.step = step;
            ck.seconds = elapsed;
            if (step % c.log_every == 0 || step == c.steps) {
                ck.history.push_back({step, loss_sum / double(period_steps), psnr_sum / double(period_steps),
                                      backend->size(), elapsed});
                loss_sum = psnr_sum = 0;
                period_steps = 0;
            }
            const double rate = double(step - first_step + 1) / std::max(elapsed - seconds_before, 1e-9);
            // The line shows where training is now: a short running mean (about 20 steps), not the last
            // log period's average.
            const bool first = step == first_step;
            recent_loss = first ? st.loss : 0.95 * recent_loss + 0.05 * st.loss;
            recent_psnr = first ? st.psnr : 0.95 * recent_psnr + 0.05 * st.psnr;
            progress.update(step, recent_loss, recent_psnr, backend->size(), rate);
            if (c.eval_every > 0 && step % c.eval_every == 0 && step != c.steps) {
                const auto e0 = std::chrono::steady_clock::now();
                const Evaluation ev = timed(
                    [&] {
                        return evaluate(*backend, ds, eval_ids, eval_settings(c, in.settings.sh_degree),
                                        false, eval_protocol(c, images, ds.extent));
                    },
                    &RunProfile::add_eval);
                excluded_seconds +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count();
                ck.evals.push_back({step, ev.psnr, ev.ssim});
                progress.break_line();
                log_info("step {}: {} PSNR {:.2f} dB, SSIM {:.4f}", step, has_test ? "test" : "train-view",
                         ev.psnr, ev.ssim);
            }
            bool viewer_stop = false;
            if (hooks.between_steps) {
                StepReport report;
                report.step = step;
                report.steps = c.steps;
                report.loss = st.loss;
                report.psnr = st.psnr;
                report.gaussians = backend->size();
                report.seconds = elapsed;
                report.steps_per_second = rate;
                // A checkpoint asked for is written at once, then the hook is asked again (it may be holding
                // the run paused).
                for (;;) {
                    const BetweenSteps b = hooks.between_steps(report, *backend);
                    excluded_seconds += b.held_seconds;
                    viewer_stop = b.request == RunRequest::stop;
                    if (b.request != RunRequest::checkpoint) break;
                    save();
                    progress.break_line();
                    log_info("step {}: checkpoint saved to {} (asked for by the viewer)", step, ck_path);
                }
            }
            if (c.checkpoint_every > 0 && step % c.checkpoint_every == 0) save();
            const bool stop = g_interrupted || viewer_stop || (hooks.after_step && !hooks.after_step(step));
            if (stop && step < c.steps) {
                save();
                progress.break_line();
                log_info("stopped at step {}; checkpoint saved to {} (continue with --resume {})", step,
                         ck_path, c.output);
                result.interrupted = true;
                result.steps = step;
                return result;
            }
        }
    } catch (const OutOfMemory& e) {
        progress.break_line();
        throw OutOfMemory(out_of_memory_advice(e.what(), step, backend->size(), saved_step, ck_path));
    }
    if (c.pose.enabled) write_corrected_cameras(out, ds, train_ids, ck.poses);
    if (const std::string chosen = tiles.summary(); !chosen.empty()) log_info("trained with {}", chosen);
    const Evaluation final_eval = evaluate(*backend, ds, eval_ids, eval_settings(c, c.sh_degree), false,
                                           eval_protocol(c, images, ds.extent));
    ck.evals.push_back({ck.step, final_eval.psnr, final_eval.ssim});
    save();
    write_outputs(c, *backend, ds, images, eval_ids, has_test, ck, profile, result);
    for (const std::string& line : profile.lines()) log_info("{}", line);
    result.steps = ck.step;
    result.seconds = ck.seconds;
    log_info("done: {} steps in {}, {} Gaussians, {} PSNR {:.2f} dB, SSIM {:.4f}", ck.step,
             format_duration(ck.seconds), result.gaussians, has_test ? "test" : "train-view",
             result.test_psnr, result.test_ssim);
    log_info("report: {}", result.report_path);
    return result;
}

}  // namespace

TrainResult train(const TrainConfig& config, const TrainHooks& hooks) {
    return run_training(config, Checkpoint{}, false, hooks);
}

TrainConfig resumed_config(const std::string& run_dir, const Checkpoint& ck, const std::string& ck_path,
                           const ResumeChanges& changes) {
    TrainConfig c = saved_config(ck.config_json, ck_path);
    // The folder named is the run, wherever it was first written (a copied or moved run resumes in place).
    c.output = run_dir;
    if (changes.steps) {
        if (*changes.steps < ck.step * std::max(1, ck.ranks))
            throw Error(fmt::format("{} is at step {}: --steps {} would end it before where it is", run_dir,
                                    ck.step * std::max(1, ck.ranks), *changes.steps));
        if (*changes.steps > c.steps)
            log_info("extending {} from {} to {} steps", run_dir, c.steps, *changes.steps);
        c.steps = *changes.steps;
    }
    if (changes.data) c.data = *changes.data;
    if (changes.backend) c.backend = *changes.backend;
    if (changes.eval_every) c.eval_every = *changes.eval_every;
    if (changes.checkpoint_every) c.checkpoint_every = *changes.checkpoint_every;
    if (changes.log_every) c.log_every = *changes.log_every;
    if (changes.profile_every) c.profile_every = *changes.profile_every;
    return c;
}

std::string checkpoint_to_resume(const std::string& run_dir) {
    const std::string ck_path = (fs::path(run_dir) / "checkpoint.bin").string();
    std::error_code ec;
    if (!fs::is_directory(run_dir, ec)) throw IoError(run_dir, "does not exist: no run to resume");
    if (!fs::exists(ck_path, ec))
        throw IoError(ck_path,
                      "does not exist: nothing to resume (a run writes it at its first checkpoint, "
                      "on Ctrl-C and at the end)");
    return ck_path;
}

TrainResult resume(const std::string& run_dir, const ResumeChanges& changes, const TrainHooks& hooks) {
    const std::string ck_path = checkpoint_to_resume(run_dir);
    Checkpoint ck = read_checkpoint(ck_path);
    if (ck.ranks > 0)
        throw IoError(ck_path,
                      fmt::format("a run on {} GPUs: continue it on as many (radiant train --resume {} "
                                  "--gpus {}, or under mpirun -n {})",
                                  ck.ranks, run_dir, ck.ranks, ck.ranks));
    TrainConfig c = resumed_config(run_dir, ck, ck_path, changes);
    log_info("resuming {} from step {}", run_dir, ck.step);
    return run_training(c, std::move(ck), true, hooks);
}

std::optional<RenderSettings> run_render_settings(const std::string& run_dir) {
    const fs::path config_path = fs::path(run_dir) / "config.json";
    std::error_code ec;
    if (!fs::exists(config_path, ec)) return std::nullopt;
    const TrainConfig c = saved_config(read_file(config_path.string()), config_path.string());
    return eval_settings(c, c.sh_degree);
}

TrainResult evaluate_model(const std::string& model, const std::string& data_dir,
                           const std::string& backend_name, std::optional<Undistort> undistort,
                           std::optional<EvalAppearance> eval_appearance, std::optional<int> eval_pose_fit) {
    const fs::path path(model);
    std::error_code ec;
    if (!fs::exists(path, ec)) throw IoError(model, "does not exist");
    // A run folder brings its settings and scene; a scene file (.ply, .spz, .splat, .compressed.ply) is
    // scored with the defaults on the dataset named.
    const bool run_folder = fs::is_directory(path, ec);
    TrainConfig c;
    std::string scene_path = model;
    if (run_folder) {
        const std::string config_path = (path / "config.json").string();
        if (!fs::exists(config_path, ec))
            throw IoError(config_path,
                          "does not exist: not a training output folder (give a scene file and --data)");
        c = saved_config(read_file(config_path), config_path);
        scene_path = (path / "scene.ply").string();
    } else {
        scene_format_from_path(model);  // an IoError for anything that is no scene file
        if (data_dir.empty())
            throw Error(
                fmt::format("{} is a scene file: name the dataset to score it on with --data", model));
        c.eval = true;
    }
    if (!data_dir.empty()) c.data = data_dir;
    if (undistort) c.undistort = *undistort;
    if (eval_appearance) c.eval_appearance = *eval_appearance;
    if (eval_pose_fit) {
        c.eval_pose_fit = *eval_pose_fit;
        validate(c);
    }
    std::unique_ptr<Backend> backend = make_backend(backend_name);  // a bad name fails before any loading
    Dataset scored = open_dataset(c.data, dataset_options(c));
    if (!run_folder && scored.format == "nerf-synthetic" && !c.white_background) {
        c.white_background = true;  // NeRF-synthetic's RGBA photos are composited over white, as they train
        scored = open_dataset(c.data, dataset_options(c));
    }
    const std::vector<TargetImage> images = load_images(scored);
    std::vector<std::size_t> ids;
    for (std::size_t i = 0; i < scored.views.size(); ++i)
        if (scored.views[i].test) ids.push_back(i);
    const bool has_test = !ids.empty();
    if (!has_test)
        for (std::size_t i = 0; i < scored.views.size(); i += 8) ids.push_back(i);
    backend->set_images(images);
    TrainState s;
    s.params = read_scene(scene_path);
    s.adam.reset_like(s.params);
    s.stats.reset(s.params.size());
    backend->load(s);
    const Evaluation ev = evaluate(*backend, scored, ids, eval_settings(c, s.params.sh_degree), false,
                                   eval_protocol(c, images, scored.extent));
    TrainResult r;
    r.test_psnr = ev.psnr;
    r.test_ssim = ev.ssim;
    r.views = ev.views;
    r.gaussians = backend->size();
    nlohmann::json j;
    j["model"] = model;
    j["data"] = c.data;
    j["views"] = has_test ? "test" : "train (no test split: every 8th view)";
    j["psnr"] = ev.psnr;
    j["ssim"] = ev.ssim;
    j["gaussians"] = r.gaussians;
    j["backend"] = backend->name();
    j["undistort"] = to_string(c.undistort);
    j["eval_appearance"] = to_string(c.eval_appearance);
    if (c.eval_pose_fit > 0)
        j["eval_pose_fit"] = {{"steps", c.eval_pose_fit},
                              {"mean_turn_deg", ev.pose_turn_deg},
                              {"mean_move_fraction_of_extent", ev.pose_move}};
    j["per_view"] = nlohmann::json::array();
    for (const ViewMetrics& v : ev.views)
        j["per_view"].push_back({{"name", v.name}, {"psnr", v.psnr}, {"ssim", v.ssim}});
    r.metrics_json = j.dump(2) + "\n";
    const fs::path out = (run_folder ? path : path.parent_path()) / "eval.json";
    write_file_atomic(out.string(), r.metrics_json);
    r.outputs = {out.string()};
    return r;
}

}  // namespace radiant
