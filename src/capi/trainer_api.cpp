// rd_trainer: a training run from a JSON config, as `radiant train --config` runs it, with a progress
// callback that can stop it.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "convert.hpp"
#include "guard.hpp"
#include "handles.hpp"
#include "json_object.hpp"
#include "radiant/io/scene_formats.hpp"
#include "radiant/train/trainer.hpp"

using namespace radiant;
using radiant::capi::checked;
using radiant::capi::guarded;

namespace {

// The preset named in the JSON is the base and the JSON's settings go over it, as for `radiant train
// --config`; "overwrite" and "profile_every" belong to the invocation, not to the run's config.json.
TrainConfig parse_config_json(const char* text);

// config_from_json reports in a file's terms (IoError); here the JSON is the caller's argument.
TrainConfig parse_config(const char* text) {
    try {
        return parse_config_json(text);
    } catch (const IoError& e) {
        throw Error(e.what());
    }
}

TrainConfig parse_config_json(const char* text) {
    nlohmann::json j = capi::parse_json_object(text, "training config");
    bool overwrite = false;
    long profile_every = 0;
    try {
        if (j.contains("overwrite")) overwrite = j["overwrite"].get<bool>();
        if (j.contains("profile_every")) profile_every = j["profile_every"].get<long>();
    } catch (const nlohmann::json::exception& e) {
        throw Error(
            fmt::format("training config: overwrite or profile_every has the wrong type ({})", e.what()));
    }
    j.erase("overwrite");
    j.erase("profile_every");
    const std::string rest = j.dump();
    const std::string preset = config_sets(rest, "preset")
                                   ? config_from_json(rest, "training config", TrainConfig{}).preset
                                   : "default";
    TrainConfig c = config_from_json(rest, "training config", preset_config(preset));
    c.preset = preset;
    if (c.data.empty()) throw Error("training config: \"data\" (the dataset folder) is required");
    if (!j.contains("output")) throw Error("training config: \"output\" (the run's folder) is required");
    if (c.strategy == "mcmc") apply_mcmc_init_recipe(c, rest);
    c.overwrite = overwrite;
    c.profile_every = profile_every;
    return c;
}

}  // namespace

extern "C" {

rd_status rd_trainer_create(const char* config_json, rd_trainer** out) {
    return guarded([&] {
        checked(config_json, "config_json");
        checked(out, "out");
        auto t = std::make_unique<rd_trainer>();
        t->config = parse_config(config_json);
        *out = t.release();
    });
}

void rd_trainer_free(rd_trainer* trainer) {
    delete trainer;
}

rd_status rd_trainer_run(rd_trainer* trainer, rd_progress_fn callback, void* user_data) {
    bool stopped = false;
    long stopped_at = 0;
    const rd_status status = guarded([&] {
        checked(trainer, "trainer");
        TrainHooks hooks;
        if (callback)
            hooks.between_steps = [&](const StepReport& r, Backend&) {
                const rd_progress p{r.step, r.steps, r.loss, r.psnr, int64_t(r.gaussians), r.seconds};
                BetweenSteps b;
                if (callback(&p, user_data) != 0) b.request = RunRequest::stop;
                return b;
            };
        const TrainResult r = train(trainer->config, hooks);
        trainer->metrics_json = r.metrics_json;
        trainer->finished = !r.interrupted;
        stopped = r.interrupted;
        stopped_at = r.steps;
    });
    if (status == RD_OK && stopped)
        return capi::fail(
            RD_ERROR_STOPPED,
            fmt::format("stopped at step {} before the end; its checkpoint is in {} (resume with "
                        "`radiant train --resume {}`)",
                        stopped_at, trainer->config.output, trainer->config.output));
    return status;
}

rd_status rd_trainer_scene(const rd_trainer* trainer, rd_scene** out) {
    return guarded([&] {
        checked(trainer, "trainer");
        checked(out, "out");
        if (!trainer->finished) throw Error("rd_trainer_scene: the run has not finished (rd_trainer_run)");
        auto s = std::make_unique<rd_scene>();
        s->scene = read_scene(trainer->config.output + "/scene.ply");
        *out = s.release();
    });
}

const char* rd_trainer_metrics_json(const rd_trainer* trainer) {
    return trainer ? trainer->metrics_json.c_str() : "";
}

}  // extern "C"
