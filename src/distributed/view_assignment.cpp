#include "radiant/distributed/view_assignment.hpp"

#include <algorithm>
#include <numeric>

#include "radiant/core/error.hpp"

namespace radiant::distributed {

std::vector<int> assign_views(const std::vector<double>& costs, int ranks) {
    RADIANT_CHECK(ranks >= 1, "assign_views: at least one rank");
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
    std::vector<int> renderer(costs.size(), 0);
    for (std::size_t v : order) {
        const auto least = std::min_element(load.begin(), load.end());  // the first of equals: the lower rank
        renderer[v] = int(least - load.begin());
        *least += costs[v];
    }
    return renderer;
}

void ViewCosts::observe(std::size_t view, double cost) {
    RADIANT_CHECK(view < cost_.size(), "ViewCosts: view out of range");
    if (measured_[view]) {
        sum_ -= cost_[view];
        --count_;
    }
    cost_[view] = cost;
    measured_[view] = true;
    sum_ += cost;
    ++count_;
}

double ViewCosts::estimate(std::size_t view) const {
    RADIANT_CHECK(view < cost_.size(), "ViewCosts: view out of range");
    if (measured_[view]) return cost_[view];
    return count_ > 0 ? sum_ / double(count_) : 1.0;
}

}  // namespace radiant::distributed
