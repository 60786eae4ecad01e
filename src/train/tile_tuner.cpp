#include "radiant/train/tile_tuner.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace radiant {
namespace {

double median_ms(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return 1e3 * (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

}  // namespace

int TileTuner::choose(int width, int height, bool small_fits) {
    PerSize& s = sizes_[{width, height}];
    if (s.seen == 0) {
        s.next_window = first_;
        s.chosen = initial_;
    }
    ++s.seen;
    current_ = &s;
    current_index_ = -1;
    if (s.seen < s.next_window) return s.chosen;
    if (!small_fits) {
        for (auto& t : s.times) t.clear();
        s.chosen = kSizes[1];
        s.next_window = 2 * s.seen;
        return s.chosen;
    }
    // Inside a window: 8, 16, 16, 8, ... so that a drift in step cost (densification, the SH degree
    // rising) weighs on both sizes alike.
    const std::size_t k = s.times[0].size() + s.times[1].size();
    current_index_ = int((k + k / 2) % 2);
    return kSizes[current_index_];
}

void TileTuner::record(double seconds) {
    if (current_ == nullptr || current_index_ < 0) return;
    PerSize& s = *current_;
    s.times[current_index_].push_back(seconds);
    current_index_ = -1;
    if (int(s.times[0].size()) < window_ || int(s.times[1].size()) < window_) return;
    // Medians: the first steps at a new size grow the backend's buffers, and one slow step must not decide.
    for (int i = 0; i < 2; ++i) {
        s.last_ms[i] = median_ms(s.times[i]);
        s.times[i].clear();
    }
    s.chosen = s.last_ms[0] < s.last_ms[1] ? kSizes[0] : kSizes[1];
    s.timed = true;
    s.next_window = 2 * s.seen;
}

std::string TileTuner::summary() const {
    std::string out;
    for (const auto& [size, s] : sizes_) {
        if (!s.timed) continue;
        out +=
            fmt::format("{}{}-pixel tiles at {}x{} ({:.2f} ms a step against {:.2f} ms)",
                        out.empty() ? "" : "; ", s.chosen, size.first, size.second,
                        s.last_ms[s.chosen == kSizes[0] ? 0 : 1], s.last_ms[s.chosen == kSizes[0] ? 1 : 0]);
    }
    return out;
}

}  // namespace radiant
