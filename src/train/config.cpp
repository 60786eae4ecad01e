#include "radiant/train/config.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "radiant/core/error.hpp"

namespace radiant {
using nlohmann::json;

namespace {

// A setting stored by the name of its value (to_string); anything else names the accepted ones.
template <class E>
void read_choice(const json& j, const char* key, const std::string& file, std::initializer_list<E> values,
                 E& out) {
    if (!j.contains(key)) return;
    const std::string given = j[key].is_string() ? j[key].get<std::string>() : "";
    std::string names;
    for (E v : values) {
        if (given == to_string(v)) {
            out = v;
            return;
        }
        names += fmt::format("{}\"{}\"", names.empty() ? "" : " or ", to_string(v));
    }
    throw IoError(file, fmt::format("'{}' must be {}", key, names));
}

// adam_scope, or the boolean visible_adam of configs and checkpoints written before it: a run from then
// resumes with the Adam it was started with (all unless visible_adam was set).
void read_adam_scope(const json& j, const std::string& file, AdamScope& out) {
    if (j.contains("adam_scope")) {
        if (j.contains("visible_adam")) throw IoError(file, "'adam_scope' and 'visible_adam' are both set");
        read_choice(j, "adam_scope", file, {AdamScope::all, AdamScope::visible, AdamScope::visible_sh}, out);
    } else if (j.contains("visible_adam")) {
        if (!j["visible_adam"].is_boolean()) throw IoError(file, "'visible_adam' has the wrong type");
        out = j["visible_adam"].get<bool>() ? AdamScope::visible : AdamScope::all;
    }
}

// One table of (key, member) pairs drives both directions, so the JSON and the struct cannot drift apart.
template <class F>
void for_each_field(TrainConfig& c, F&& f) {
    f("preset", c.preset);
    f("data", c.data);
    f("output", c.output);
    f("steps", c.steps);
    f("downscale", c.downscale);
    f("images", c.images);
    f("masks", c.masks);
    f("eval", c.eval);
    f("test_every", c.test_every);
    f("strategy", c.strategy);
    f("sh_degree", c.sh_degree);
    f("sh_interval", c.sh_interval);
    f("backend", c.backend);
    f("white_background", c.white_background);
    f("random_background", c.random_background);
    f("seed", c.seed);
    f("eval_every", c.eval_every);
    f("checkpoint_every", c.checkpoint_every);
    f("log_every", c.log_every);
    f("diverge_patience", c.diverge_patience);
    f("lambda_ssim", c.lambda_ssim);
    f("init_random_points", c.init_random_points);
    f("init_opacity", c.init_opacity);
    f("init_scale", c.init_scale);
    f("resolution_schedule", c.resolution_schedule);
    f("memory_budget_gib", c.memory_budget_gib);
    f("export", c.export_formats);
    f("tile_size", c.render.tile_size);
    f("auto_tile_size", c.auto_tile_size);
    f("radius_scale", c.render.radius_scale);
    f("alpha_cutoff", c.render.alpha_cutoff);
    f("max_splat_steps", c.render.max_splat_steps);
    f("transmittance_threshold", c.render.transmittance_threshold);
    f("max_anisotropy", c.render.max_anisotropy);
    f("loss_grad_clip", c.render.loss_grad_clip);
    f("near_plane", c.render.near_plane);
    f("far_plane", c.render.far_plane);
    f("eps2d", c.render.eps2d);
    f("antialiased", c.render.antialiased);
    f("exposure_lr", c.appearance.exposure_lr);
    f("exposure_reg", c.appearance.exposure_reg);
    f("bilateral_lr", c.appearance.bilateral_lr);
    f("bilateral_tv", c.appearance.bilateral_tv);
    f("pose_opt", c.pose.enabled);
    f("pose_lr", c.pose.lr);
    f("pose_lr_final", c.pose.lr_final);
    f("pose_reg", c.pose.reg);
    f("pose_start", c.pose.start);
    f("pose_track_every", c.pose.track_every);
    f("pose_track_iters", c.pose.track_iters);
    f("eval_pose_fit", c.eval_pose_fit);
    f("lr_means_init", c.lr.means_init);
    f("lr_means_final", c.lr.means_final);
    f("lr_sh_dc", c.lr.sh_dc);
    f("lr_sh_rest", c.lr.sh_rest);
    f("lr_opacity", c.lr.opacity);
    f("lr_log_scales", c.lr.log_scales);
    f("lr_quats", c.lr.quats);
    f("densify_start", c.adc.start);
    f("densify_stop", c.adc.stop);
    f("densify_every", c.adc.interval);
    f("densify_grad_threshold", c.adc.grad_threshold);
    f("percent_dense", c.adc.percent_dense);
    f("prune_opacity", c.adc.min_opacity);
    f("opacity_reset_every", c.adc.reset_every);
    f("max_screen_radius", c.adc.max_screen_radius);
    f("max_world_scale", c.adc.max_world_scale);
    f("adc_max_gaussians", c.adc.max_gaussians);
    f("mcmc_start", c.mcmc.start);
    f("mcmc_stop", c.mcmc.stop);
    f("mcmc_every", c.mcmc.interval);
    f("max_gaussians", c.mcmc.max_gaussians);
    f("mcmc_min_opacity", c.mcmc.min_opacity);
    f("mcmc_grow_rate", c.mcmc.grow_rate);
    f("mcmc_noise_lr", c.mcmc.noise_lr);
    f("mcmc_opacity_reg", c.mcmc.opacity_reg);
    f("mcmc_scale_reg", c.mcmc.scale_reg);
}

}  // namespace

TrainConfig preset_config(const std::string& name) {
    TrainConfig c;
    if (name == "default") return c;
    if (name != "fast") throw Error(fmt::format("preset '{}' is not default or fast", name));
    // Measured on bonsai (bench/RESULTS.md, issue 20): the default recipe's shape in under a quarter of its
    // steps.
    c.preset = "fast";
    c.steps = 7000;
    c.sh_interval = 500;
    c.adc.start = 500;
    c.adc.stop = 4000;
    c.adc.reset_every = 3000;
    c.mcmc.stop = 5000;
    return c;
}

std::string config_to_json(const TrainConfig& config) {
    TrainConfig c = config;
    json j;
    for_each_field(c, [&](const char* key, auto& v) { j[key] = v; });
    j["trace_mode"] = to_string(c.render.trace_mode);
    j["shading"] = to_string(c.render.shading);
    j["undistort"] = to_string(c.undistort);
    j["resample"] = to_string(c.resample);
    j["alpha"] = to_string(c.alpha);
    j["appearance"] = to_string(c.appearance.model);
    j["eval_appearance"] = to_string(c.eval_appearance);
    j["adam_scope"] = to_string(c.adam_scope);
    return j.dump(2) + "\n";
}

TrainConfig config_from_json(const std::string& text, const std::string& name, TrainConfig c) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw IoError(name, fmt::format("invalid JSON: {}", e.what()));
    }
    if (!j.is_object()) throw IoError(name, "expected an object of settings");
    std::set<std::string> known{"trace_mode", "shading",         "undistort",  "resample",    "alpha",
                                "appearance", "eval_appearance", "adam_scope", "visible_adam"};
    for_each_field(c, [&](const char* key, auto& v) {
        known.insert(key);
        if (!j.contains(key)) return;
        try {
            v = j[key].get<std::decay_t<decltype(v)>>();
        } catch (const json::exception&) {
            throw IoError(name, fmt::format("'{}' has the wrong type", key));
        }
    });
    read_choice(j, "trace_mode", name, {TraceMode::replay, TraceMode::trace}, c.render.trace_mode);
    read_choice(j, "shading", name, {Shading::ewa, Shading::ray}, c.render.shading);
    read_choice(j, "undistort", name, {Undistort::mask, Undistort::crop}, c.undistort);
    read_choice(j, "resample", name, {Resample::bilinear, Resample::bicubic}, c.resample);
    read_choice(j, "alpha", name, {AlphaUse::automatic, AlphaUse::composite, AlphaUse::mask}, c.alpha);
    read_choice(j, "appearance", name,
                {AppearanceModel::off, AppearanceModel::exposure, AppearanceModel::bilateral},
                c.appearance.model);
    read_choice(j, "eval_appearance", name, {EvalAppearance::identity, EvalAppearance::fit_left_half},
                c.eval_appearance);
    read_adam_scope(j, name, c.adam_scope);
    for (const auto& [key, value] : j.items())
        if (!known.count(key)) throw IoError(name, fmt::format("unknown setting '{}'", key));
    return c;
}

bool config_sets(const std::string& text, const std::string& key) {
    if (text.empty()) return false;
    const json j = json::parse(text, nullptr, false);
    return j.is_object() && j.contains(key);
}

void apply_mcmc_init_recipe(TrainConfig& c, const std::string& config_text) {
    if (!config_sets(config_text, "init_opacity")) c.init_opacity = 0.5;
    if (!config_sets(config_text, "init_scale")) c.init_scale = 0.1;
}

std::vector<std::string> export_extensions(const std::string& formats) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= formats.size() && !formats.empty()) {
        const std::size_t comma = std::min(formats.find(',', start), formats.size());
        std::string f = formats.substr(start, comma - start);
        f.erase(0, f.find_first_not_of(" ."));
        f.erase(f.find_last_not_of(' ') + 1);
        if (f != "spz" && f != "splat" && f != "compressed.ply")
            throw Error(fmt::format("export format '{}' is not spz, splat or compressed.ply", f));
        out.push_back(f);
        start = comma + 1;
    }
    return out;
}

void validate(const TrainConfig& c) {
    auto fail = [](const std::string& why) { throw Error("training settings: " + why); };
    if (c.data.empty()) fail("no dataset (-d DATA)");
    if (c.steps < 1) fail(fmt::format("steps {} must be positive", c.steps));
    if (c.downscale < 0) fail(fmt::format("downscale {} must be 0 (automatic) or at least 1", c.downscale));
    if (c.undistort == Undistort::none) fail("undistort must be mask or crop");
    if (c.white_background && c.random_background)
        fail("white_background and random_background both set: the background is one or the other");
    const std::pair<const char*, double> rates[] = {{"lr_means_init", c.lr.means_init},
                                                    {"lr_means_final", c.lr.means_final},
                                                    {"lr_sh_dc", c.lr.sh_dc},
                                                    {"lr_sh_rest", c.lr.sh_rest},
                                                    {"lr_opacity", c.lr.opacity},
                                                    {"lr_log_scales", c.lr.log_scales},
                                                    {"lr_quats", c.lr.quats},
                                                    {"exposure_lr", c.appearance.exposure_lr},
                                                    {"exposure_reg", c.appearance.exposure_reg},
                                                    {"bilateral_lr", c.appearance.bilateral_lr},
                                                    {"bilateral_tv", c.appearance.bilateral_tv},
                                                    {"pose_reg", c.pose.reg}};
    for (const auto& [key, rate] : rates)
        if (!(rate >= 0 && std::isfinite(rate)))
            fail(fmt::format("{} {} must be a non-negative number", key, rate));
    if (!(c.lr.means_init > 0 && c.lr.means_final > 0))
        fail(
            "lr_means_init and lr_means_final must be positive (the rate decays between them exponentially)");
    if (!(c.pose.lr > 0 && c.pose.lr_final > 0 && std::isfinite(c.pose.lr) && std::isfinite(c.pose.lr_final)))
        fail("pose_lr and pose_lr_final must be positive (the rate decays between them exponentially)");
    if (c.pose.start < 0) fail(fmt::format("pose_start {} must not be negative", c.pose.start));
    // A pose fit spends one render, then 7 a round (train/pose_fit.hpp): fewer than 8 would fit nothing.
    auto fit_steps_ok = [](long n) { return n == 0 || (n >= 8 && n <= 10000); };
    if (c.pose.track_every < 0)
        fail(fmt::format("pose_track_every {} must not be negative", c.pose.track_every));
    if (c.pose.track_every > 0 && !c.pose.enabled)
        fail("pose_track_every is set but pose_opt is off: tracking rounds refine the learned corrections");
    if (c.pose.track_every > 0 && !(fit_steps_ok(c.pose.track_iters) && c.pose.track_iters > 0))
        fail(fmt::format("pose_track_iters {} is not in 8..10000 (renders per view and round)",
                         c.pose.track_iters));
    if (!fit_steps_ok(c.eval_pose_fit))
        fail(fmt::format("eval_pose_fit {} is neither 0 nor in 8..10000 (renders per test view)",
                         c.eval_pose_fit));
    if (c.strategy != "default" && c.strategy != "mcmc")
        fail(fmt::format("strategy '{}' is not default or mcmc", c.strategy));
    if (c.sh_degree < 0 || c.sh_degree > 3) fail(fmt::format("sh_degree {} is not in 0..3", c.sh_degree));
    if (c.sh_interval < 1) fail(fmt::format("sh_interval {} must be positive", c.sh_interval));
    try {
        parse_resolution_schedule(c.resolution_schedule);
    } catch (const Error& e) {
        fail(e.what());
    }
    if (c.preset != "default" && c.preset != "fast")
        fail(fmt::format("preset '{}' is not default or fast", c.preset));
    if (!(c.lambda_ssim >= 0 && c.lambda_ssim <= 1)) fail("lambda_ssim must be in [0, 1]");
    if (c.eval_every < 0 || c.checkpoint_every < 0 || c.log_every < 1 || c.diverge_patience < 0)
        fail("negative step periods");
    if (c.strategy == "mcmc" && c.mcmc.max_gaussians < 1) fail("max_gaussians must be positive");
    if (!(c.init_opacity > 0 && c.init_opacity < 1)) fail("init_opacity must be in (0, 1)");
    if (!(c.init_scale > 0 && std::isfinite(c.init_scale))) fail("init_scale must be positive");
    if (!(c.memory_budget_gib >= 0 && std::isfinite(c.memory_budget_gib)))
        fail("memory_budget_gib must be 0 (what the GPU has free) or positive");
    export_extensions(c.export_formats);
    validate(c.render);
}

}  // namespace radiant
