#include "radiant/train/run_profile.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace radiant {

void RunProfile::add_step(const StepTimings& t) {
    sum_.project += t.project;
    sum_.bin += t.bin;
    sum_.sort += t.sort;
    sum_.forward += t.forward;
    sum_.loss += t.loss;
    sum_.backward += t.backward;
    sum_.geometry += t.geometry;
    sum_.adam += t.adam;
    sum_.step += t.step;
    ++steps_;
}

void RunProfile::add_densify(double seconds) {
    densify_seconds_ += seconds;
    ++densify_calls_;
}

void RunProfile::add_eval(double seconds) {
    eval_seconds_ += seconds;
    ++evals_;
}

std::vector<StageShare> RunProfile::step_stages() const {
    std::vector<StageShare> out;
    if (steps_ == 0) return out;
    const std::pair<const char*, double> stages[] = {{"project", sum_.project},   {"bin", sum_.bin},
                                                     {"sort", sum_.sort},         {"forward", sum_.forward},
                                                     {"loss", sum_.loss},         {"backward", sum_.backward},
                                                     {"geometry", sum_.geometry}, {"adam", sum_.adam}};
    for (const auto& [name, total] : stages)
        if (total > 0) out.push_back({name, total / double(steps_)});
    return out;
}

double RunProfile::step_ms() const {
    return steps_ > 0 ? sum_.step / double(steps_) : 0.0;
}

std::string RunProfile::json() const {
    nlohmann::json j;
    j["every"] = every_;
    j["steps_timed"] = steps_;
    j["step_ms"] = step_ms();
    nlohmann::json stages = nlohmann::json::object();
    for (const StageShare& s : step_stages()) stages[s.stage] = s.ms;
    j["stages_ms"] = stages;
    j["densify_calls"] = densify_calls_;
    j["densify_seconds"] = densify_seconds_;
    j["evaluations"] = evals_;
    j["eval_seconds"] = eval_seconds_;
    return j.dump();
}

std::vector<std::string> RunProfile::lines() const {
    std::vector<std::string> out;
    if (steps_ == 0) return out;
    const double step = step_ms();
    out.push_back(fmt::format("profile: {} steps timed (every {}): {:.3f} ms a step", steps_, every_, step));
    for (const StageShare& s : step_stages())
        out.push_back(
            fmt::format("  {:<9} {:8.3f} ms  {:5.1f} %", s.stage, s.ms, step > 0 ? 100 * s.ms / step : 0));
    if (densify_calls_ > 0)
        out.push_back(fmt::format("  densification: {} calls, {:.2f} s in all ({:.1f} ms each)",
                                  densify_calls_, densify_seconds_,
                                  1000 * densify_seconds_ / double(densify_calls_)));
    if (evals_ > 0) out.push_back(fmt::format("  evaluations: {}, {:.2f} s in all", evals_, eval_seconds_));
    return out;
}

}  // namespace radiant
