#pragma once
// Divergence detection: a run whose loss goes non-finite, or stays far above where it started, stops with a
// clear message instead of training on for an hour and writing a broken scene. An opacity reset raises the
// loss for a hundred steps or so; the patience is there so that one never counts.
#include <string>

namespace radiant {

struct DivergenceRule {
    long warmup = 50;     // steps whose mean loss is the reference level; also the smoothing window
    double factor = 2;    // diverged above factor × the reference level ...
    long patience = 500;  // ... held for this many steps; 0: only a non-finite loss counts
};

class DivergenceWatch {
  public:
    explicit DivergenceWatch(DivergenceRule rule = {}) : rule_(rule) {}
    // Empty while the run is healthy; otherwise why it diverged (a sentence fragment for the error).
    std::string add(long step, double loss);

  private:
    DivergenceRule rule_;
    long seen_ = 0;
    double reference_ = 0, smoothed_ = 0;
    long above_since_ = -1;
};

}  // namespace radiant
