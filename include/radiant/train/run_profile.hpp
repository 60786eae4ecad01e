#pragma once
// `radiant train --profile N`: where a run's time goes. Every Nth step is timed stage by stage (CUDA events
// on the GPU, so a timed step costs no synchronisation it would not have anyway), densification and
// evaluation by the clock; the means go to metrics.json ("profile") and the report.
#include <string>
#include <utility>
#include <vector>

#include "radiant/train/backend.hpp"

namespace radiant {

struct StageShare {
    std::string stage;
    double ms = 0;  // mean per timed step (per call for densify)
};

class RunProfile {
  public:
    explicit RunProfile(long every) : every_(every) {}
    bool enabled() const { return every_ > 0; }
    bool wants(long step) const { return every_ > 0 && step % every_ == 0; }

    void add_step(const StepTimings& t);
    void add_densify(double seconds);
    void add_eval(double seconds);

    long every() const { return every_; }
    long steps_timed() const { return steps_; }
    // The step's stages with their mean milliseconds (stages that took no time left out), in step order.
    std::vector<StageShare> step_stages() const;
    double step_ms() const;  // mean of the timed steps' sums
    // "profile" for metrics.json.
    std::string json() const;
    // A few lines for the log and the report: each stage, its mean and its share of the step.
    std::vector<std::string> lines() const;

  private:
    long every_ = 0, steps_ = 0, densify_calls_ = 0, evals_ = 0;
    StepTimings sum_;
    double densify_seconds_ = 0, eval_seconds_ = 0;
};

}  // namespace radiant
