#pragma once
// Which rank renders which view of a batch. Views differ in cost (a close-up of a dense region makes many
// times the tile pairs of a view of the sky), and a rank that draws the dear ones holds every other rank up
// at the next exchange (gsplat #763). So views are dealt by measured cost: the tile pairs a view made the
// last time it was rendered, which the raster's time follows.
#include <cstddef>
#include <vector>

namespace radiant::distributed {

// Longest processing time first: the costliest view first, each to the rank with the least cost so far (ties
// to the lower rank, so every rank computes the same assignment). The busiest rank ends within 4/3 of the
// best possible.
std::vector<int> assign_views(const std::vector<double>& costs, int ranks);

// The cost of each view of a dataset as last measured; a view not yet rendered is taken at the mean of the
// measured ones (1 before any).
class ViewCosts {
  public:
    explicit ViewCosts(std::size_t views) : cost_(views, 0.0), measured_(views, false) {}
    void observe(std::size_t view, double cost);
    double estimate(std::size_t view) const;

  private:
    std::vector<double> cost_;
    std::vector<bool> measured_;
    double sum_ = 0;
    std::size_t count_ = 0;
};

}  // namespace radiant::distributed
