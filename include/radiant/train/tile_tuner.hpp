#pragma once
// Chooses the tile edge a CUDA run trains with by timing both sizes on the run itself. The tile size changes
// no pixel's value, only how the raster's work is split: 8-pixel tiles make more tile pairs but test fewer
// pixels per pair. Which wins depends on the splats' sizes against the image: on bonsai 8 is 20 % faster; on
// a scene of large splats 16 is 35 % faster (bench/RESULTS.md). Splat sizes change as the run densifies, so
// each image size is timed again at geometrically spaced steps.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace radiant {

class TileTuner {
  public:
    static constexpr int kSizes[2] = {8, 16};
    // initial: the size used until the first window; first: the step (counted per image size) that window
    // starts at; window: timed steps per size.
    explicit TileTuner(int initial = 16, long first = 200, int window = 8)
        : initial_(initial), first_(first), window_(window) {}

    // The tile size for the next step, rendered at width × height. small_fits: whether the memory the
    // smaller tiles' extra pairs take is free (a window that cannot try them is put off, not run).
    int choose(int width, int height, bool small_fits = true);
    // The wall time of the step that the last choose() was for.
    void record(double seconds);

    // What was chosen, one phrase per image size (empty before any window has finished).
    std::string summary() const;

  private:
    struct PerSize {
        long seen = 0, next_window = 0;
        int chosen = 16;
        std::vector<double> times[2];  // the current window's step times, by kSizes index
        double last_ms[2] = {0, 0};    // medians of the last finished window
        bool timed = false;
    };
    int initial_;
    long first_;
    int window_;
    std::map<std::pair<int, int>, PerSize> sizes_;
    PerSize* current_ = nullptr;
    int current_index_ = -1;  // kSizes index being timed by the pending step; -1: not a timed step
};

}  // namespace radiant
