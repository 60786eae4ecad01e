#include "radiant/distributed/distributed_train.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "radiant/core/error.hpp"
#include "radiant/core/log.hpp"
#include "radiant/io/dataset.hpp"
#include "radiant/io/file.hpp"
#include "radiant/train/loss.hpp"
#if RADIANT_HAS_CUDA
#include "radiant/distributed/mpi_session.hpp"
#include "radiant/distributed/nccl_communicator.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#endif

namespace radiant::distributed {
namespace fs = std::filesystem;

std::unique_ptr<Communicator> join_ranks(const RankPlace& place, const std::string& dir,
                                         const std::string& run) {
#if RADIANT_HAS_CUDA
    RADIANT_CHECK(cuda::device_available(), fmt::format("rank {} of {} finds no CUDA device (GPU {} wanted)",
                                                        place.rank, place.world, place.local));
    // NVLink SHARP multicast (NVLS) stays off unless the user turned it on: it hangs on some virtualised
    // hosts, and the exchanges here are point to point.
    ::setenv("NCCL_NVLS_ENABLE", "0", 0);
    const std::shared_ptr<const NcclLibrary> nccl = NcclLibrary::load();
    NcclUniqueId mine{};
    if (place.rank == 0) nccl->check(nccl->get_unique_id(&mine), "ncclGetUniqueId");
    if (place.source == "mpirun") {
        // mpirun's ranks may sit on machines that share no folder: MPI hands rank 0's id to the others.
        const std::unique_ptr<MpiSession> mpi = MpiSession::start();
        RADIANT_CHECK(mpi->size() == place.world && mpi->rank() == place.rank,
                      fmt::format("Open MPI says rank {} of {}, its variables rank {} of {}", mpi->rank(),
                                  mpi->size(), place.rank, place.world));
        NcclUniqueId id = mine;
        mpi->broadcast(id.internal, sizeof id.internal, 0);
        return std::make_unique<NcclCommunicator>(nccl, id, place.rank, place.world, place.local);
    }
    fs::create_directories(dir);
    const fs::path id_file = fs::path(dir) / (".nccl-id-" + run);
    // Rank 0 removes the id's file once its communicator exists (every rank has read the id then: NCCL's
    // set-up waits for all of them) or could not be made.
    struct RemoveIdFile {
        const fs::path& file;
        bool owner;
        ~RemoveIdFile() {
            std::error_code ec;
            if (owner) fs::remove(file, ec);
        }
    } remove_id{id_file, place.rank == 0};
    const NcclUniqueId id = share_nccl_id(dir, run, place.rank, mine);
    return std::make_unique<NcclCommunicator>(nccl, id, place.rank, place.world, place.local);
#else
    (void)place, (void)dir, (void)run;
    throw Error("multi-GPU training needs a build with the CUDA backend (this radiant has none)");
#endif
}

ParallelTrainConfig parallel_config(const TrainConfig& c, int ranks, double extent) {
    RADIANT_CHECK(ranks >= 1, "multi-GPU training needs at least one rank");
    auto refuse = [](bool given, const char* what) {
        if (given)
            throw Error(fmt::format("multi-GPU training does not do {} yet: train on one GPU for it", what));
    };
    refuse(c.pose.enabled, "pose refinement (--pose-opt)");
    refuse(c.appearance.model != AppearanceModel::off, "per-image appearance (--appearance)");
    refuse(!c.resolution_schedule.empty(), "resolution schedules (--resolution-schedule, --preset fast)");
    refuse(c.adam_scope == AdamScope::visible, "Adam over the visible Gaussians only (--adam-scope visible)");
    refuse(c.random_background, "random backgrounds (--random-bg)");
    refuse(!c.export_formats.empty(), "exports (--export; radiant convert makes them from OUT/scene.ply)");
    refuse(c.eval_every > 0, "evaluations during the run (--eval-every)");
    // A schedule's step in batch steps: 1/N of the images' steps, rounded up (0 stays 0: never / at once).
    auto steps = [ranks](long s) { return s <= 0 ? s : (s + ranks - 1) / ranks; };
    const double root = std::sqrt(double(ranks));
    ParallelTrainConfig p;
    p.steps = steps(c.steps);
    p.batch = ranks;
    p.settings = eval_settings(c, c.sh_degree);
    p.sh_degree = c.sh_degree;
    p.sh_interval = steps(c.sh_interval);
    p.lr = c.lr;
    for (double* lr : {&p.lr.means_init, &p.lr.means_final, &p.lr.sh_dc, &p.lr.sh_rest, &p.lr.opacity,
                       &p.lr.log_scales, &p.lr.quats})
        *lr *= root;
    p.strategy = c.strategy;
    p.adc = c.adc;
    p.adc.start = steps(c.adc.start);
    p.adc.stop = steps(c.adc.stop);
    p.adc.interval = std::max(1L, steps(c.adc.interval));
    p.adc.reset_every = steps(c.adc.reset_every);
    p.adc.grad_threshold = c.adc.grad_threshold / double(ranks);
    p.mcmc = c.mcmc;
    p.mcmc.start = steps(c.mcmc.start);
    p.mcmc.stop = steps(c.mcmc.stop);
    p.mcmc.interval = std::max(1L, steps(c.mcmc.interval));
    p.lambda_ssim = c.lambda_ssim;
    p.extent = extent;
    p.seed = c.seed;
    p.checkpoint_every = steps(c.checkpoint_every);
    p.output = c.output;
    p.backend = c.backend == "cpu" ? "cpu" : "cuda";
    p.auto_tile_size = c.auto_tile_size;
    return p;
}

TrainResult train_distributed(const TrainConfig& given, Communicator& comm, const std::function<bool()>& stop,
                              const Checkpoint* resume) {
    // A batch step's Adam takes no radii (each of its views has its own), so every Gaussian is updated: the
    // one-GPU default visible_sh becomes all, and the run's config.json says so.
    TrainConfig c = given;
    if (c.adam_scope == AdamScope::visible_sh) c.adam_scope = AdamScope::all;
    validate(c);
    const bool lead = comm.rank() == 0;
    const fs::path out(c.output);
    if (!resume) refuse_to_replace_a_run(out, c.overwrite);
    const Dataset ds = open_dataset(c.data, dataset_options(c));
    ParallelTrainConfig pc = parallel_config(c, comm.size(), ds.extent);
    if (lead)
        log_info("{}: {} ({} train, {} test views, {}x{}) on {} ranks: {} steps of {} views", c.data,
                 ds.format, ds.train_count(), ds.test_count(), ds.views.front().camera.width,
                 ds.views.front().camera.height, comm.size(), pc.steps, pc.batch);
    const std::vector<TargetImage> images = load_images(ds, 0, stop);
    for (std::size_t i = 0; i < images.size(); ++i)
        if (!images[i].mask.data.empty())
            throw Error(
                fmt::format("{}: view {} has a mask, which multi-GPU training does not take yet: train "
                            "on one GPU for masked captures",
                            c.data, ds.views[i].name));
    // The GPU stages take the 8-bit photos; the CPU stages (tests) read them as floats.
    std::vector<Image<float>> targets(pc.backend == "cpu" ? images.size() : 0);
    for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = to_float(images[i].rgb);
    std::vector<BatchView> views;
    for (std::size_t i = 0; i < ds.views.size(); ++i)
        if (!ds.views[i].test)
            views.push_back(
                {&ds.views[i].camera, targets.empty() ? nullptr : &targets[i], views.size(), &images[i]});
    RADIANT_CHECK(!views.empty(), fmt::format("{}: no training views", c.data));
    RADIANT_CHECK(std::size_t(comm.size()) <= views.size(),
                  fmt::format("{}: {} ranks need at least as many training views ({} here)", c.data,
                              comm.size(), views.size()));

    const Scene scene = resume ? Scene{} : initial_run_scene(ds, c);
    if (lead && c.overwrite && !resume) clear_run(out);
    if (resume) {
        RADIANT_CHECK(resume->view_order.size() <= views.size(),
                      fmt::format("{}: the run to continue was trained on {} views, this dataset has {}",
                                  c.data, resume->view_order.size(), views.size()));
        pc.resume = resume;
    }
    const double before = resume ? resume->seconds : 0.0;

    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const long every = std::max(1L, c.log_every);
    pc.on_step = [&](long step, double loss, std::size_t gaussians) {
        if (lead && (step % every == 0 || step == pc.steps))
            log_info("step {}/{}  loss {:.4f}  Gaussians {}  {:.1f} steps/s", step, pc.steps, loss, gaussians,
                     double(step) / std::max(seconds(), 1e-9));
    };
    pc.stop = stop;
    const std::string config_json = config_to_json(c);
    pc.save = [&](Checkpoint& whole) {
        whole.config_json = config_json;
        whole.seconds = before + seconds();
        write_checkpoint((out / "checkpoint.bin").string(), whole);
    };
    const ParallelTrainResult run = train_gaussian_parallel(comm, scene, views, pc);
    const double trained = before + seconds();

    TrainResult r;
    r.interrupted = run.stopped;
    r.steps = long(run.losses.size()) + (resume ? resume->step : 0);
    r.gaussians = run.scene.size();
    r.seconds = trained;
    if (!lead) return r;
    if (!run.tiles.empty()) log_info("trained with {}", run.tiles);
    write_file_atomic((out / "config.json").string(), config_json);
    nlohmann::json j;
    if (!r.interrupted) {
        const TrainResult scored = evaluate_model(c.output, "", pc.backend);
        r.test_psnr = scored.test_psnr;
        r.test_ssim = scored.test_ssim;
        r.views = scored.views;
        j["test_psnr"] = r.test_psnr;
        j["test_ssim"] = r.test_ssim;
    }
    j["ranks"] = comm.size();
    j["batch_steps"] = r.steps;
    j["views_per_step"] = pc.batch;
    j["gaussians"] = r.gaussians;
    j["train_seconds"] = trained;
    j["steps_per_second"] = double(r.steps) / std::max(trained, 1e-9);
    j["final_loss"] = run.losses.empty() ? 0.0 : run.losses.back();
    j["share_sizes"] = run.share_sizes;
    j["peak_device_bytes"] = run.peak_bytes;
    j["interrupted"] = r.interrupted;
    if (!run.tiles.empty()) j["tiles"] = run.tiles;
    // Where rank 0's training time went, in ms a step of this run (a resumed run's steps before it not
    // counted; the rest: checkpoints, the loop).
    const double per = 1000.0 / double(std::max<std::size_t>(run.losses.size(), 1));
    j["phase_ms"] = {
        {"project", run.seconds.project * per},      {"exchange", run.seconds.send * per},
        {"render", run.seconds.render * per},        {"exchange_back", run.seconds.send_back * per},
        {"backward_adam", run.seconds.update * per}, {"densify", run.densify_seconds * per}};
    r.metrics_json = j.dump(2) + "\n";
    write_file_atomic((out / "metrics.json").string(), r.metrics_json);
    r.outputs = {(out / "scene.ply").string(), (out / "config.json").string(),
                 (out / "metrics.json").string(), (out / "checkpoint.bin").string()};
    if (!r.interrupted) r.outputs.push_back((out / "eval.json").string());
    return r;
}

TrainResult resume_distributed(const std::string& run_dir, const ResumeChanges& changes, Communicator& comm,
                               const std::function<bool()>& stop) {
    const std::string ck_path = (fs::path(run_dir) / "checkpoint.bin").string();
    // Rank 0 reads the file and sends each rank its part (the ranks under mpirun may share no folder, and the
    // whole state to every rank would be N copies of the scene), or to every rank why it cannot.
    const int ranks = comm.size();
    std::vector<Bytes> out(static_cast<std::size_t>(ranks));
    if (comm.rank() == 0) {
        auto send = [&](int r, char kind, const std::string& text) {
            Bytes& b = out[std::size_t(r)];
            b.resize(1 + text.size());
            b[0] = std::byte(kind);
            std::memcpy(b.data() + 1, text.data(), text.size());
        };
        try {
            const Checkpoint whole = read_checkpoint(checkpoint_to_resume(run_dir));
            if (whole.ranks == 0)
                throw IoError(ck_path, fmt::format("a run on one GPU: continue it without --gpus (radiant "
                                                   "train --resume {})",
                                                   run_dir));
            if (whole.ranks != ranks)
                throw IoError(ck_path, fmt::format("a run on {} GPUs, continued on {}: each step renders one "
                                                   "view a GPU, so the run goes on with --gpus {} (or mpirun "
                                                   "-n {})",
                                                   whole.ranks, ranks, whole.ranks, whole.ranks));
            for (int r = 0; r < ranks; ++r) send(r, 'C', checkpoint_bytes(part_of(whole, r, ranks)));
        } catch (const Error& e) {
            for (int r = 0; r < ranks; ++r) send(r, 'E', e.what());
        }
    }
    std::vector<Bytes> in = comm.all_to_all(std::move(out));
    const Bytes& mine = in.front();
    RADIANT_CHECK(!mine.empty(), "resume: rank 0 sent nothing");
    const std::string_view text(reinterpret_cast<const char*>(mine.data()) + 1, mine.size() - 1);
    if (mine[0] == std::byte('E')) throw Error(std::string(text));
    const Checkpoint part = parse_checkpoint(text, ck_path);
    in.clear();
    const TrainConfig c = resumed_config(run_dir, part, ck_path, changes);
    if (comm.rank() == 0) log_info("resuming {} from step {} on {} ranks", run_dir, part.step, ranks);
    return train_distributed(c, comm, stop, &part);
}

}  // namespace radiant::distributed
