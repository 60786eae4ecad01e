// `radiant train` and `radiant eval`.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "commands.hpp"
#include "dataset_flags.hpp"
#include "flythrough.hpp"
#include "multi_gpu.hpp"
#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/colmap.hpp"
#include "radiant/io/file.hpp"
#include "radiant/live/live_session.hpp"
#include "radiant/prepare/prepare.hpp"
#include "radiant/train/trainer.hpp"

namespace radiant::app {

namespace {

std::map<std::string, AppearanceModel> appearance_names() {
    return {{"off", AppearanceModel::off},
            {"exposure", AppearanceModel::exposure},
            {"bilateral", AppearanceModel::bilateral}};
}
std::map<std::string, AdamScope> adam_scope_names() {
    return {{"all", AdamScope::all}, {"visible", AdamScope::visible}, {"visible_sh", AdamScope::visible_sh}};
}
std::map<std::string, EvalAppearance> eval_appearance_names() {
    return {{"identity", EvalAppearance::identity}, {"fit-left-half", EvalAppearance::fit_left_half}};
}

// The end of a run: what it wrote (stderr, with the log), and the metrics for scripts (stdout, --json).
void report_outputs(const TrainResult& r, bool json) {
    std::string list;
    for (const std::string& o : r.outputs) list += "\n  " + o;
    log_info("wrote:{}", list);
    if (json) std::printf("%s", r.metrics_json.c_str());
}

// The live viewer of a run, when --viewer asks for one (its server starts before anything loads, so the
// URL is printed at once).
class Watch {
  public:
    Watch(int port, const std::string& host) {
        if (port > 0) live_ = std::make_unique<live::LiveTraining>(live::LiveOptions{host, port, 0.1});
    }
    TrainHooks hooks() { return live_ ? live_->hooks() : TrainHooks{}; }
    void ended(const TrainResult& r) {
        if (live_) live_->finished(r.interrupted ? "stopped" : "finished");
    }

  private:
    std::unique_ptr<live::LiveTraining> live_;
};

// Photos without poses (or a video) given to train: `radiant prepare` into OUT/data first, and train there.
// An earlier such run's prepared data is used again (unless --overwrite).
void prepare_if_unposed(TrainConfig& c) {
    namespace fs = std::filesystem;
    if (!needs_prepare(c.data)) return;
    const fs::path out(c.output), data = out / "data";
    std::error_code ec;
    if (!c.overwrite && (fs::exists(out / "checkpoint.bin", ec) || fs::exists(out / "scene.ply", ec)))
        throw Error(fmt::format("{} holds a run: give another -o, --overwrite to replace it, or --resume {}",
                                c.output, c.output));
    if (!c.overwrite && !find_colmap_model(data.string()).empty()) {
        log_info("{} has photos but no poses; {} holds them posed by an earlier prepare: training on it",
                 c.data, data.string());
    } else {
        log_info("{} has photos but no poses: preparing them with COLMAP into {} first (radiant prepare)",
                 c.data, data.string());
        PrepareOptions p;
        p.input = c.data;
        p.output = data.string();
        p.overwrite = c.overwrite;
        prepare_dataset(p);
    }
    c.data = data.string();
}

}  // namespace

void add_train_command(CLI::App& app, const std::vector<std::string>& command_line) {
    struct Args {
        TrainConfig c;
        std::string config_file, resume;
        std::size_t max_gaussians = 0;
        bool json = false;
        bool video = false;   // OUT/flythrough.mp4 at the end
        int viewer_port = 0;  // 0: no live viewer
        int gpus = 0;         // 0: one process on one device
        std::string viewer_host = "127.0.0.1";
    };
    auto a = std::make_shared<Args>();
    TrainConfig& c = a->c;
    auto* cmd = app.add_subcommand("train", "Train a scene from posed images (COLMAP or transforms.json)");
    cmd->add_option("-d,--data,-s,--source", c.data, "dataset folder (-s/--source as Inria 3DGS)");
    cmd->add_option("-o,--output,-m,--model-path", c.output, "output folder (-m/--model-path as Inria 3DGS)")
        ->capture_default_str();
    cmd->add_option("--config", a->config_file, "JSON file with the same keys as OUT/config.json; flags win");
    cmd->add_option(
           "--preset", c.preset,
           "recipe: default (Inria 3DGS's, 30k steps) or fast (a preview in seconds: 7k steps, "
           "densification and SH bands compressed into them); --config and flags override its settings")
        ->check(CLI::IsMember({"default", "fast"}))
        ->capture_default_str();
    cmd->add_option("--resume", a->resume, "continue the run in this output folder from its last checkpoint");
    cmd->add_option("--steps,-i,--iterations", c.steps,
                    "training steps (-i/--iterations as Inria, LichtFeld)")
        ->capture_default_str();
    add_dataset_flags(cmd, {&c.downscale, &c.undistort, &c.resample, &c.images, &c.masks, &c.alpha});
    cmd->add_flag("--eval", c.eval, "hold out every --test-every-th image for testing");
    cmd->add_option("--test-every", c.test_every, "test split period")->capture_default_str();
    cmd->add_option("--strategy", c.strategy, "densification: default (ADC) or mcmc")
        ->check(CLI::IsMember({"default", "mcmc"}))
        ->capture_default_str();
    cmd->add_option("--max-gaussians", a->max_gaussians,
                    "cap on the Gaussian count: MCMC's budget (default 1000000); the default strategy has no "
                    "cap but the memory budget unless given")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--memory-budget", c.memory_budget_gib,
                    "GPU memory the run may use, GiB (default: 95 % of what is free at the start)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option(
        "--resolution-schedule", c.resolution_schedule,
        "train the early steps at a fraction of the resolution: FACTOR:STEP,… (say 4:2000,2:6000 — "
        "1/4 before step 2000, 1/2 before 6000, full after); evaluation stays at full resolution");
    cmd->add_option("--sh-degree", c.sh_degree, "final SH degree")
        ->check(CLI::Range(0, 3))
        ->capture_default_str();
    cmd->add_option("--backend", c.backend, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    cmd->add_option("--shading", c.render.shading,
                    "ewa (splatted footprints, what 3DGS viewers show; distorted images are undistorted "
                    "first) or ray (peak response along each pixel's ray, through the lens model: trains on "
                    "distorted and fisheye images as they are)")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, Shading>{{"ewa", Shading::ewa}, {"ray", Shading::ray}}))
        ->capture_default_str();
    cmd->add_flag("--antialiased", c.render.antialiased,
                  "ewa: Mip-Splatting's 2D filter with opacity compensation (gsplat's antialiased mode), so "
                  "the scene renders faithfully below the training resolution; viewers without it show small "
                  "splats too thick");
    cmd->add_option("--appearance", c.appearance.model,
                    "per-image appearance learned beside the scene, for photos whose exposure or white "
                    "balance varies: exposure (an affine colour transform per image, as Inria 3DGS) or "
                    "bilateral (a bilateral grid per image, as gsplat); off by default")
        ->transform(CLI::CheckedTransformer(appearance_names()))
        ->capture_default_str();
    cmd->add_option("--eval-appearance", c.eval_appearance,
                    "how test views are scored: identity (as the scene renders) or fit-left-half (a "
                    "transform fitted on each test image's left half, the right half scored: Inria's "
                    "protocol for runs with exposure compensation)")
        ->transform(CLI::CheckedTransformer(eval_appearance_names()))
        ->capture_default_str();
    cmd->add_option("--eval-pose-fit", c.eval_pose_fit,
                    "fit each test view's pose to the scene by this many measuring steps before scoring it "
                    "(0: score at the given poses). For --pose-opt runs, whose scene follows the refined "
                    "training cameras: 100 is enough from a pose within a degree")
        ->capture_default_str();
    cmd->add_flag(
        "--pose-opt", c.pose.enabled,
        "refine each training image's camera pose beside the scene (a 6-DoF correction learned with "
        "Adam: pose_lr, pose_lr_final, pose_reg in --config; pose_track_every and pose_track_iters add "
        "rounds fitting every view to the scene as it stands); cameras.json gets the refined poses. "
        "Score such runs with --eval-pose-fit");
    CLI::Option* scope =
        cmd->add_option("--adam-scope", c.adam_scope,
                        "which Gaussians each step's Adam updates: visible_sh (every Gaussian's geometry and "
                        "opacity, the SH colours of those the view sees), all (torch.optim.Adam) or visible "
                        "(only those the view sees, gsplat's visible_adam: its scenes grow larger); "
                        "multi-GPU training updates all")
            ->transform(CLI::CheckedTransformer(adam_scope_names()))
            ->capture_default_str();
    cmd->add_flag_callback(
           "--visible-adam", [&c] { c.adam_scope = AdamScope::visible; }, "the same as --adam-scope visible")
        ->excludes(scope);
    cmd->add_flag("--white-bg", c.white_background, "white background (NeRF-synthetic)");
    cmd->add_flag("--random-bg", c.random_background, "random background colour per step");
    cmd->add_option("--seed", c.seed, "random seed")->capture_default_str();
    cmd->add_option("--eval-every", c.eval_every, "evaluate every N steps (0: at the end)")
        ->capture_default_str();
    cmd->add_option("--checkpoint-every", c.checkpoint_every, "checkpoint every N steps (0: at the end)")
        ->capture_default_str();
    cmd->add_option("--log-every", c.log_every, "history period for the report")->capture_default_str();
    cmd->add_flag("--profile{100}", c.profile_every,
                  "time every 100th step (--profile=N: every Nth) stage by stage; the means go to the log, "
                  "metrics.json and the report")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option(
        "--export", c.export_formats,
        "also write OUT/scene.EXT for each of these formats, comma-separated: spz, splat, compressed.ply");
    cmd->add_flag("--json", a->json, "print the final metrics (metrics.json) to stdout, for scripts");
    cmd->add_flag("--video", a->video,
                  "at the end, OUT/flythrough.mp4: 8 s (240 frames) smoothly through the training cameras "
                  "(ffmpeg; without it the frames and the command that joins them)");
    cmd->add_flag(
           "--viewer{8080}", a->viewer_port,
           "watch the run in a browser: a page on http://127.0.0.1:8080/ (--viewer=PORT; the next free "
           "port when taken) rendered by the trainer between steps")
        ->check(CLI::Range(1, 65535));
    cmd->add_option("--viewer-host", a->viewer_host,
                    "address the viewer listens on (default 127.0.0.1: reach it from elsewhere with ssh -L)")
        ->capture_default_str();
    cmd->add_option(
           "--gpus", a->gpus,
           "train on N GPUs of this machine, one process each (Gaussian-parallel over NCCL, which "
           "must be installed: the system's libnccl.so.2 or PyTorch's); each step renders N views, so "
           "the run takes steps/N steps. `mpirun -n N radiant train …` runs it across machines")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--force,--overwrite", c.overwrite,
                  "train into a folder that holds a run, replacing it (its outputs are removed first)");
    cmd->callback([a, cmd, command_line] {
        install_interrupt_handler();
        auto given = [&](const char* name) { return cmd->count(name) > 0; };
        if (!a->resume.empty()) {
            // A resumed run keeps its settings: the flags that may change are taken, any other is refused
            // rather than silently ignored.
            const std::set<std::string> may_change{
                "--resume",           "--steps",     "--data", "--backend", "--eval-every",
                "--checkpoint-every", "--log-every", "--json", "--profile", "--viewer",
                "--viewer-host",      "--video",     "--gpus"};
            for (const CLI::Option* o : cmd->get_options())
                if (o->count() > 0 && !may_change.count(o->get_name()))
                    throw Error(
                        fmt::format("--resume continues a run with its own settings: {} cannot change (with "
                                    "--resume only "
                                    "--steps (to extend it), -d (a moved dataset), --backend, --eval-every, "
                                    "--checkpoint-every, --log-every, --profile, --viewer and --gpus may be "
                                    "given)",
                                    o->get_name()));
            ResumeChanges ch;
            if (given("--steps")) ch.steps = a->c.steps;
            if (given("--data")) ch.data = a->c.data;
            if (given("--backend")) ch.backend = a->c.backend;
            if (given("--eval-every")) ch.eval_every = a->c.eval_every;
            if (given("--checkpoint-every")) ch.checkpoint_every = a->c.checkpoint_every;
            if (given("--log-every")) ch.log_every = a->c.log_every;
            if (given("--profile")) ch.profile_every = a->c.profile_every;
            if (trains_on_ranks(a->gpus)) {
                if (a->viewer_port > 0 || a->video)
                    throw Error("--viewer and --video are for runs on one GPU: not with --gpus or mpirun");
                const TrainResult r = resume_on_ranks(a->resume, ch, a->gpus, command_line);
                if (!r.outputs.empty()) report_outputs(r, a->json);
                return;
            }
            Watch watch(a->viewer_port, a->viewer_host);
            const TrainResult r = resume(a->resume, ch, watch.hooks());
            watch.ended(r);
            if (r.interrupted)
                throw Error(fmt::format("stopped at step {} before the end; continue with --resume {}",
                                        r.steps, a->resume));
            if (a->video)
                write_run_flythrough(a->resume, ch.backend.value_or("auto"),
                                     (std::filesystem::path(a->resume) / "flythrough.mp4").string(), 240, 30);
            report_outputs(r, a->json);
            return;
        }
        // The preset (--preset, else the file's "preset") is the base, the file's settings go over it, and
        // the flags given on the command line over both.
        const std::string config_text = a->config_file.empty() ? "" : read_file(a->config_file);
        std::string preset = a->c.preset;
        if (!given("--preset") && config_sets(config_text, "preset"))
            preset = config_from_json(config_text, a->config_file, TrainConfig{}).preset;
        TrainConfig c = preset_config(preset);
        if (!config_text.empty()) c = config_from_json(config_text, a->config_file, c);
        c.preset = preset;
        const TrainConfig& flags = a->c;
        // Every option is either a setting taken from the flags here or one handled elsewhere: a new flag
        // missing from both tables stops every run rather than being silently dropped.
        using Take = void (*)(TrainConfig&, const TrainConfig&);
        static const std::map<std::string, Take> settings{
            {"--data", [](TrainConfig& t, const TrainConfig& f) { t.data = f.data; }},
            {"--output", [](TrainConfig& t, const TrainConfig& f) { t.output = f.output; }},
            {"--steps", [](TrainConfig& t, const TrainConfig& f) { t.steps = f.steps; }},
            {"--downscale", [](TrainConfig& t, const TrainConfig& f) { t.downscale = f.downscale; }},
            {"--undistort", [](TrainConfig& t, const TrainConfig& f) { t.undistort = f.undistort; }},
            {"--resample", [](TrainConfig& t, const TrainConfig& f) { t.resample = f.resample; }},
            {"--images", [](TrainConfig& t, const TrainConfig& f) { t.images = f.images; }},
            {"--masks", [](TrainConfig& t, const TrainConfig& f) { t.masks = f.masks; }},
            {"--alpha", [](TrainConfig& t, const TrainConfig& f) { t.alpha = f.alpha; }},
            {"--eval", [](TrainConfig& t, const TrainConfig& f) { t.eval = f.eval; }},
            {"--test-every", [](TrainConfig& t, const TrainConfig& f) { t.test_every = f.test_every; }},
            {"--strategy", [](TrainConfig& t, const TrainConfig& f) { t.strategy = f.strategy; }},
            {"--memory-budget",
             [](TrainConfig& t, const TrainConfig& f) { t.memory_budget_gib = f.memory_budget_gib; }},
            {"--resolution-schedule",
             [](TrainConfig& t, const TrainConfig& f) { t.resolution_schedule = f.resolution_schedule; }},
            {"--sh-degree", [](TrainConfig& t, const TrainConfig& f) { t.sh_degree = f.sh_degree; }},
            {"--backend", [](TrainConfig& t, const TrainConfig& f) { t.backend = f.backend; }},
            {"--shading", [](TrainConfig& t, const TrainConfig& f) { t.render.shading = f.render.shading; }},
            {"--antialiased",
             [](TrainConfig& t, const TrainConfig& f) { t.render.antialiased = f.render.antialiased; }},
            {"--appearance",
             [](TrainConfig& t, const TrainConfig& f) { t.appearance.model = f.appearance.model; }},
            {"--eval-appearance",
             [](TrainConfig& t, const TrainConfig& f) { t.eval_appearance = f.eval_appearance; }},
            {"--pose-opt", [](TrainConfig& t, const TrainConfig& f) { t.pose.enabled = f.pose.enabled; }},
            {"--eval-pose-fit",
             [](TrainConfig& t, const TrainConfig& f) { t.eval_pose_fit = f.eval_pose_fit; }},
            {"--adam-scope", [](TrainConfig& t, const TrainConfig& f) { t.adam_scope = f.adam_scope; }},
            {"--visible-adam", [](TrainConfig& t, const TrainConfig& f) { t.adam_scope = f.adam_scope; }},
            {"--white-bg",
             [](TrainConfig& t, const TrainConfig& f) { t.white_background = f.white_background; }},
            {"--random-bg",
             [](TrainConfig& t, const TrainConfig& f) { t.random_background = f.random_background; }},
            {"--seed", [](TrainConfig& t, const TrainConfig& f) { t.seed = f.seed; }},
            {"--eval-every", [](TrainConfig& t, const TrainConfig& f) { t.eval_every = f.eval_every; }},
            {"--checkpoint-every",
             [](TrainConfig& t, const TrainConfig& f) { t.checkpoint_every = f.checkpoint_every; }},
            {"--log-every", [](TrainConfig& t, const TrainConfig& f) { t.log_every = f.log_every; }},
            {"--export", [](TrainConfig& t, const TrainConfig& f) { t.export_formats = f.export_formats; }},
        };
        static const std::set<std::string> handled_elsewhere{
            "--help",  "--config", "--preset", "--resume", "--max-gaussians", "--profile",
            "--force", "--json",   "--video",  "--viewer", "--viewer-host",   "--gpus"};
        for (const CLI::Option* o : cmd->get_options()) {
            const std::string name = o->get_name();
            if (handled_elsewhere.count(name)) continue;
            const auto take = settings.find(name);
            if (take == settings.end())
                throw Error(
                    fmt::format("radiant train: the flag {} does not reach the run's settings (a bug: "
                                "add it to the table in apps/radiant/cmd_train.cpp)",
                                name));
            if (o->count() > 0) take->second(c, flags);
        }
        if (given("--max-gaussians")) c.mcmc.max_gaussians = c.adc.max_gaussians = a->max_gaussians;
        c.overwrite = flags.overwrite;
        c.profile_every = flags.profile_every;
        if (c.strategy == "mcmc") apply_mcmc_init_recipe(c, config_text);
        if (given("--test-every") && !c.eval)
            throw Error("--test-every sets the test split of --eval, which is not given");
        if (trains_on_ranks(a->gpus)) {
            if (a->viewer_port > 0 || a->video)
                throw Error("--viewer and --video are for runs on one GPU: not with --gpus or mpirun");
            // Photos without poses are prepared once, by the launcher, before any rank starts; a rank
            // trains on what it prepared.
            if (starts_ranks()) {
                prepare_if_unposed(c);
            } else if (needs_prepare(c.data)) {
                const std::string data = (std::filesystem::path(c.output) / "data").string();
                if (find_colmap_model(data).empty())
                    throw Error(
                        fmt::format("{} has photos but no poses: prepare them first (radiant prepare "
                                    "{} -o {}) and train on that",
                                    c.data, c.data, data));
                c.data = data;
            }
            const TrainResult r = train_on_ranks(c, a->gpus, command_line);
            if (!r.outputs.empty()) report_outputs(r, a->json);
            return;
        }
        prepare_if_unposed(c);
        Watch watch(a->viewer_port, a->viewer_host);
        const TrainResult r = train(c, watch.hooks());
        watch.ended(r);
        if (r.interrupted)
            throw Error(fmt::format("stopped at step {} before the end; continue with --resume {}", r.steps,
                                    c.output));
        if (a->video)
            write_run_flythrough(c.output, c.backend,
                                 (std::filesystem::path(c.output) / "flythrough.mp4").string(), 240, 30);
        report_outputs(r, a->json);
    });

    auto e = std::make_shared<std::array<std::string, 3>>();
    auto eval_undistort = std::make_shared<Undistort>(Undistort::none);
    auto* ev = app.add_subcommand(
        "eval",
        "Score a trained model (a run folder, or a .ply/.spz/.splat/.compressed.ply with --data) on a "
        "dataset's test views; writes eval.json beside it");
    ev->add_option("--model,-m,--model-path", (*e)[0], "training output folder, or a scene file")->required();
    ev->add_option("--data,-d,-s,--source", (*e)[1],
                   "dataset folder (default: the one the run trained on; required for a scene file)");
    (*e)[2] = "auto";
    ev->add_option("--backend", (*e)[2], "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    ev->add_option("--undistort", *eval_undistort,
                   "score an ewa model on the views of this undistortion (default: the run's own), e.g. a "
                   "mask-trained model on crop's pixels")
        ->transform(CLI::CheckedTransformer(undistort_names()));
    auto eval_appearance = std::make_shared<EvalAppearance>(EvalAppearance::identity);
    ev->add_option(
          "--eval-appearance", *eval_appearance,
          "identity (as the scene renders) or fit-left-half (a transform fitted on each test image's "
          "left half, the right half scored); default: the run's own")
        ->transform(CLI::CheckedTransformer(eval_appearance_names()));
    auto eval_pose_fit = std::make_shared<int>(0);
    ev->add_option("--eval-pose-fit", *eval_pose_fit,
                   "fit each test view's pose to the scene by this many measuring steps before scoring it "
                   "(default: the run's own; 0: the given poses)");
    ev->callback([e, eval_undistort, eval_appearance, eval_pose_fit, ev] {
        const std::optional<Undistort> u =
            ev->count("--undistort") ? std::optional<Undistort>(*eval_undistort) : std::nullopt;
        const std::optional<EvalAppearance> protocol =
            ev->count("--eval-appearance") ? std::optional<EvalAppearance>(*eval_appearance) : std::nullopt;
        const std::optional<int> pose_fit =
            ev->count("--eval-pose-fit") ? std::optional<int>(*eval_pose_fit) : std::nullopt;
        const TrainResult r = evaluate_model((*e)[0], (*e)[1], (*e)[2], u, protocol, pose_fit);
        for (const ViewMetrics& v : r.views)
            std::printf("%-32s PSNR %6.2f dB  SSIM %.4f\n", v.name.c_str(), v.psnr, v.ssim);
        std::printf("mean (%zu views)                 PSNR %6.2f dB  SSIM %.4f  (%zu Gaussians)\n",
                    r.views.size(), r.test_psnr, r.test_ssim, r.gaussians);
        log_info("wrote {}", r.outputs.front());
    });
}

}  // namespace radiant::app
