#include "radiant/core/kdtree.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace radiant {
namespace {
constexpr std::size_t kLeafSize = 16;
}

KdTree::KdTree(std::vector<Vec3<float>> points) : points_(std::move(points)), order_(points_.size()) {
    std::iota(order_.begin(), order_.end(), std::size_t(0));
    if (!points_.empty()) build(0, points_.size(), 0);
}

int KdTree::build(std::size_t begin, std::size_t end, int depth) {
    const int id = int(nodes_.size());
    nodes_.push_back({-1, 0.f, begin, end, -1, -1});
    if (end - begin <= kLeafSize || depth > 60) return id;
    // Split the widest axis at the median.
    Vec3<float> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (std::size_t i = begin; i < end; ++i)
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], points_[order_[i]][a]);
            hi[a] = std::max(hi[a], points_[order_[i]][a]);
        }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (hi[a] - lo[a] > hi[axis] - lo[axis]) axis = a;
    const std::size_t mid = (begin + end) / 2;
    std::nth_element(order_.begin() + std::ptrdiff_t(begin), order_.begin() + std::ptrdiff_t(mid),
                     order_.begin() + std::ptrdiff_t(end),
                     [&](std::size_t a, std::size_t b) { return points_[a][axis] < points_[b][axis]; });
    const float split = points_[order_[mid]][axis];
    const int left = build(begin, mid, depth + 1);
    const int right = build(mid, end, depth + 1);
    nodes_[std::size_t(id)].axis = axis;
    nodes_[std::size_t(id)].split = split;
    nodes_[std::size_t(id)].left = left;
    nodes_[std::size_t(id)].right = right;
    return id;
}

void KdTree::search(int node, const Vec3<float>& q, std::size_t self, int k, std::vector<float>& best) const {
    const Node& n = nodes_[std::size_t(node)];
    if (n.axis < 0) {
        for (std::size_t i = n.begin; i < n.end; ++i) {
            const std::size_t p = order_[i];
            if (p == self) continue;
            const Vec3<float> d = points_[p] - q;
            const float d2 = dot(d, d);
            if (int(best.size()) < k) {
                best.insert(std::upper_bound(best.begin(), best.end(), d2), d2);
            } else if (d2 < best.back()) {
                best.pop_back();
                best.insert(std::upper_bound(best.begin(), best.end(), d2), d2);
            }
        }
        return;
    }
    const float diff = q[n.axis] - n.split;
    const int near = diff < 0 ? n.left : n.right, far = diff < 0 ? n.right : n.left;
    search(near, q, self, k, best);
    if (int(best.size()) < k || diff * diff < best.back()) search(far, q, self, k, best);
}

std::vector<float> KdTree::nearest_sq(std::size_t i, int k) const {
    std::vector<float> best;
    best.reserve(std::size_t(k) + 1);
    if (!nodes_.empty()) search(0, points_[i], i, k, best);
    return best;
}

std::vector<float> mean_sq_dist_3nn(const std::vector<Vec3<float>>& points) {
    const KdTree tree(points);
    std::vector<float> out(points.size(), 0.f);
    const std::int64_t n = std::int64_t(points.size());
#pragma omp parallel for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < n; ++i) {
        const auto d = tree.nearest_sq(std::size_t(i), 3);
        float s = 0;
        for (float v : d) s += v;
        out[std::size_t(i)] = d.empty() ? 0.f : s / float(d.size());
    }
    return out;
}

}  // namespace radiant
