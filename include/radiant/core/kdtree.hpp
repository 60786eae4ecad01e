#pragma once
// A static 3D k-d tree for nearest-neighbour queries (initial scales from the 3 nearest points).
#include <cstddef>
#include <vector>

#include "radiant/core/vec.hpp"

namespace radiant {

class KdTree {
  public:
    explicit KdTree(std::vector<Vec3<float>> points);

    // Squared distances to the k nearest other points of point i (excluding itself), ascending.
    std::vector<float> nearest_sq(std::size_t i, int k) const;
    std::size_t size() const { return points_.size(); }

  private:
    struct Node {
        int axis;  // -1: leaf
        float split;
        std::size_t begin, end;  // leaf range in order_
        int left, right;
    };
    int build(std::size_t begin, std::size_t end, int depth);
    void search(int node, const Vec3<float>& q, std::size_t self, int k, std::vector<float>& best) const;

    std::vector<Vec3<float>> points_;
    std::vector<std::size_t> order_;
    std::vector<Node> nodes_;
};

// Mean squared distance to the 3 nearest neighbours of every point (Inria 3DGS's initial scale), in parallel.
std::vector<float> mean_sq_dist_3nn(const std::vector<Vec3<float>>& points);

}  // namespace radiant
