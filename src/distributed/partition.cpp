#include "radiant/distributed/partition.hpp"

#include <algorithm>
#include <cmath>
#include <compare>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "radiant/distributed/share_store.hpp"
#include "wire.hpp"

namespace radiant::distributed {
namespace {

// (Morton key, id): unique, so the order is total.
struct Key {
    std::uint64_t key = 0, id = 0;
    auto operator<=>(const Key&) const = default;
};

std::uint64_t spread_bits(std::uint64_t v) {  // 21 bits → every third of 63
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffULL;
    v = (v | v << 16) & 0x1f0000ff0000ffULL;
    v = (v | v << 8) & 0x100f00f00f00f00fULL;
    v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
    v = (v | v << 2) & 0x1249249249249249ULL;
    return v;
}

// The box of means [3N].
void local_bounds(const std::vector<float>& means, Vec3<double>& lo, Vec3<double>& hi) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    lo = {inf, inf, inf};
    hi = {-inf, -inf, -inf};
    for (std::size_t i = 0; i + 2 < means.size(); i += 3) {
        const Vec3<double> m{means[i], means[i + 1], means[i + 2]};
        lo = {std::min(lo.x, m.x), std::min(lo.y, m.y), std::min(lo.z, m.z)};
        hi = {std::max(hi.x, m.x), std::max(hi.y, m.y), std::max(hi.z, m.z)};
    }
}

// The (id, a row of each array) records of every buffer, read into `arrays` (resized to fit); their ids.
std::vector<std::uint64_t> read_gaussians(const std::vector<Bytes>& in, int sh_degree,
                                          std::initializer_list<Scene*> arrays) {
    const std::size_t record = sizeof(std::uint64_t) + arrays.size() * sizeof(float) *
                                                           (11 + 3 * std::size_t(sh_coeff_count(sh_degree)));
    std::size_t total = 0;
    for (const Bytes& b : in) {
        RADIANT_CHECK(b.size() % record == 0, "a rank's message does not hold whole Gaussians");
        total += b.size() / record;
    }
    for (Scene* s : arrays) {
        s->sh_degree = sh_degree;
        s->resize(total);
    }
    std::vector<std::uint64_t> ids;
    std::size_t j = 0;
    for (const Bytes& b : in) {
        Reader r(b);
        for (; !r.done(); ++j) {
            ids.push_back(r.get<std::uint64_t>());
            for (Scene* s : arrays) read_row(r, *s, j);
        }
    }
    return ids;
}

// The order that sorts `ids`; an id twice is an error (a Gaussian held by two ranks).
std::vector<std::size_t> id_order(const std::vector<std::uint64_t>& ids, const char* what) {
    std::vector<std::size_t> order(ids.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
    for (std::size_t k = 1; k < order.size(); ++k)
        if (ids[order[k]] == ids[order[k - 1]])
            throw Error(std::string(what) + ": Gaussian id " + std::to_string(ids[order[k]]) +
                        " is held by two ranks");
    return order;
}

int owner_of(std::size_t position, std::size_t n, int ranks) {
    int r = 0;
    while (r + 1 < ranks && run_start(n, r + 1, ranks) <= position) ++r;
    return r;
}

}  // namespace

namespace {

std::vector<std::uint64_t> morton_keys_of(const std::vector<float>& means, const Vec3<double>& lo,
                                          const Vec3<double>& hi) {
    constexpr double cells = double(1 << 21);
    auto cell = [&](float v, double l, double h) {
        const double t = h > l ? (double(v) - l) / (h - l) : 0.0;
        return std::uint64_t(std::clamp(std::isfinite(t) ? t * cells : 0.0, 0.0, cells - 1));
    };
    std::vector<std::uint64_t> keys(means.size() / 3);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const float* m = means.data() + 3 * i;
        keys[i] = spread_bits(cell(m[0], lo.x, hi.x)) | spread_bits(cell(m[1], lo.y, hi.y)) << 1 |
                  spread_bits(cell(m[2], lo.z, hi.z)) << 2;
    }
    return keys;
}

}  // namespace

std::vector<std::uint64_t> morton_keys(const Scene& scene, const Vec3<double>& lo, const Vec3<double>& hi) {
    return morton_keys_of(scene.means, lo, hi);
}

std::size_t run_start(std::size_t n, int rank, int ranks) {
    return n / std::size_t(ranks) * std::size_t(rank) + std::min(n % std::size_t(ranks), std::size_t(rank));
}

namespace {

// The rows of `scene` that `rank` owns, in increasing order: its run of the (Morton key, id) order.
std::vector<std::size_t> rows_of(const Scene& scene, const std::vector<std::uint64_t>& ids, int rank,
                                 int ranks) {
    RADIANT_CHECK(ranks >= 1 && rank >= 0 && rank < ranks, "a share: rank out of range");
    RADIANT_CHECK(ids.size() == scene.size(), "a share: ids and Gaussians disagree");
    Vec3<double> lo, hi;
    local_bounds(scene.means, lo, hi);
    const std::vector<std::uint64_t> keys = morton_keys(scene, lo, hi);
    std::vector<std::size_t> order(scene.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return Key{keys[a], ids[a]} < Key{keys[b], ids[b]};
    });
    std::vector<std::size_t> mine(order.begin() + std::ptrdiff_t(run_start(scene.size(), rank, ranks)),
                                  order.begin() + std::ptrdiff_t(run_start(scene.size(), rank + 1, ranks)));
    std::sort(mine.begin(), mine.end());
    return mine;
}

}  // namespace

Share initial_share(const Scene& scene, int rank, int ranks) {
    std::vector<std::uint64_t> ids(scene.size());
    std::iota(ids.begin(), ids.end(), std::uint64_t(0));
    const std::vector<std::size_t> mine = rows_of(scene, ids, rank, ranks);
    Share s;
    s.scene = gather_rows(scene, mine);
    s.ids.assign(mine.begin(), mine.end());
    s.adam.reset_like(s.scene);
    return s;
}

Share share_of(const TrainState& whole, const std::vector<std::uint64_t>& ids, int rank, int ranks,
               DensifyStats& stats) {
    const std::size_t n = whole.params.size();
    RADIANT_CHECK(std::is_sorted(ids.begin(), ids.end()), "a share: ids must increase");
    RADIANT_CHECK(whole.adam.m.size() == n && whole.adam.v.size() == n &&
                      whole.stats.grad_accum.size() == n && whole.stats.denom.size() == n &&
                      whole.stats.max_radii.size() == n,
                  "a share: the saved moments or statistics do not match the Gaussians");
    const std::vector<std::size_t> mine = rows_of(whole.params, ids, rank, ranks);
    Share s;
    s.scene = gather_rows(whole.params, mine);
    s.adam.m = gather_rows(whole.adam.m, mine);
    s.adam.v = gather_rows(whole.adam.v, mine);
    s.adam.step = whole.adam.step;
    s.ids.resize(mine.size());
    stats.reset(mine.size());
    for (std::size_t k = 0; k < mine.size(); ++k) {
        s.ids[k] = ids[mine[k]];
        stats.grad_accum[k] = whole.stats.grad_accum[mine[k]];
        stats.denom[k] = whole.stats.denom[mine[k]];
        stats.max_radii[k] = whole.stats.max_radii[mine[k]];
    }
    return s;
}

void rebalance(Communicator& comm, ShareStore& store) {
    const int ranks = comm.size();
    const std::vector<std::uint64_t>& ids = store.ids();
    const std::size_t n_local = ids.size();
    // One rank owns every place of the order: nothing can move.
    if (ranks == 1 && std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end()) return;
    const std::vector<float> means = store.means();
    RADIANT_CHECK(means.size() == 3 * n_local, "rebalance: ids and Gaussians disagree");
    // The box of every rank's means, then the global (key, id) order.
    Vec3<double> lo, hi;
    local_bounds(means, lo, hi);
    Bytes box;
    Writer(box).put(lo);
    Writer(box).put(hi);
    for (const Bytes& b : all_gather(comm, box)) {
        Reader r(b);
        const auto l = r.get<Vec3<double>>(), h = r.get<Vec3<double>>();
        lo = {std::min(lo.x, l.x), std::min(lo.y, l.y), std::min(lo.z, l.z)};
        hi = {std::max(hi.x, h.x), std::max(hi.y, h.y), std::max(hi.z, h.z)};
    }
    const std::vector<std::uint64_t> keys = morton_keys_of(means, lo, hi);
    Bytes mine;
    Writer w(mine);
    for (std::size_t i = 0; i < n_local; ++i) w.put(Key{keys[i], ids[i]});
    std::vector<Key> all;
    for (const Bytes& b : all_gather(comm, mine)) {
        Reader r(b);
        while (!r.done()) all.push_back(r.get<Key>());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::uint64_t> all_ids(all.size());
    for (std::size_t k = 0; k < all.size(); ++k) all_ids[k] = all[k].id;
    std::sort(all_ids.begin(), all_ids.end());
    if (const auto twice = std::adjacent_find(all_ids.begin(), all_ids.end()); twice != all_ids.end())
        throw Error("rebalance: Gaussian id " + std::to_string(*twice) + " is held by two ranks");
    // Each Gaussian, with its moments, to the rank whose run holds its place in that order. Those that stay
    // do not travel: after a densification most stay.
    std::vector<std::vector<std::uint32_t>> leaving(static_cast<std::size_t>(ranks));
    std::vector<std::uint32_t> stay;
    stay.reserve(n_local);
    for (std::size_t i = 0; i < n_local; ++i) {
        const std::size_t position =
            std::size_t(std::lower_bound(all.begin(), all.end(), Key{keys[i], ids[i]}) - all.begin());
        const int owner = owner_of(position, all.size(), ranks);
        (owner == comm.rank() ? stay : leaving[std::size_t(owner)]).push_back(std::uint32_t(i));
    }
    std::vector<Bytes> out(static_cast<std::size_t>(ranks));
    for (int d = 0; d < ranks; ++d) {
        const std::vector<std::uint32_t>& rows = leaving[std::size_t(d)];
        if (rows.empty()) continue;
        Scene p, m, v;
        store.rows(rows, p, m, v);
        Writer to(out[std::size_t(d)]);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            to.put(ids[rows[k]]);
            put_row(to, p, k);
            put_row(to, m, k);
            put_row(to, v, k);
        }
    }
    const std::vector<Bytes> in = comm.all_to_all(std::move(out));
    Scene scene, m, v;
    const std::vector<std::uint64_t> arrived = read_gaussians(in, store.sh_degree(), {&scene, &m, &v});
    if (arrived.empty() && stay.size() == n_local && std::is_sorted(ids.begin(), ids.end()))
        return;  // nothing moved
    // The share: the rows that stayed (in id order already) and those that arrived, in id order.
    std::vector<std::uint64_t> next;
    next.reserve(stay.size() + arrived.size());
    for (std::uint32_t i : stay) next.push_back(ids[i]);
    next.insert(next.end(), arrived.begin(), arrived.end());
    const std::vector<std::size_t> order = id_order(next, "rebalance");
    std::vector<std::uint32_t> from(order.size());
    std::vector<std::uint64_t> sorted(order.size());
    for (std::size_t j = 0; j < order.size(); ++j) {
        const std::size_t k = order[j];
        from[j] = k < stay.size() ? stay[k] : std::uint32_t(n_local + (k - stay.size()));
        sorted[j] = next[k];
    }
    store.rearrange(from, scene, m, v, std::move(sorted));
}

void rebalance(Communicator& comm, Share& share) {
    DensifyStats unused;
    unused.reset(share.scene.size());
    rebalance(comm, *host_store(share, unused));
}

Scene merge(Communicator& comm, const Share& share, std::vector<std::uint64_t>* ids_out) {
    Bytes mine;
    Writer w(mine);
    for (std::size_t i = 0; i < share.scene.size(); ++i) {
        w.put(share.ids[i]);
        put_row(w, share.scene, i);
    }
    Scene scene;
    const std::vector<std::uint64_t> ids =
        read_gaussians(all_gather(comm, mine), share.scene.sh_degree, {&scene});
    const std::vector<std::size_t> order = id_order(ids, "merge");
    if (ids_out) {
        ids_out->resize(ids.size());
        for (std::size_t k = 0; k < ids.size(); ++k) (*ids_out)[k] = ids[order[k]];
    }
    return gather_rows(scene, order);
}

TrainState merge_state(Communicator& comm, const Share& share, const DensifyStats& stats,
                       std::vector<std::uint64_t>& ids_out) {
    const std::size_t n = share.scene.size();
    const bool has_stats =
        stats.grad_accum.size() == n && stats.denom.size() == n && stats.max_radii.size() == n;
    // Everything to rank 0: the rows with their ids, then the statistics in the same order.
    std::vector<Bytes> rows(std::size_t(comm.size())), counts(std::size_t(comm.size()));
    Writer w(rows[0]), c(counts[0]);
    for (std::size_t i = 0; i < n; ++i) {
        w.put(share.ids[i]);
        put_row(w, share.scene, i);
        put_row(w, share.adam.m, i);
        put_row(w, share.adam.v, i);
        c.put(has_stats ? stats.grad_accum[i] : 0.f);
        c.put(has_stats ? stats.denom[i] : std::int32_t(0));
        c.put(has_stats ? stats.max_radii[i] : 0.f);
    }
    const std::vector<Bytes> in_rows = comm.all_to_all(std::move(rows));
    const std::vector<Bytes> in_counts = comm.all_to_all(std::move(counts));
    TrainState state;
    ids_out.clear();
    if (comm.rank() != 0) return state;
    Scene scene, m, v;
    const std::vector<std::uint64_t> ids = read_gaussians(in_rows, share.scene.sh_degree, {&scene, &m, &v});
    DensifyStats all;
    all.reset(ids.size());
    std::size_t j = 0;
    for (const Bytes& b : in_counts) {
        Reader r(b);
        for (; !r.done(); ++j) {
            RADIANT_CHECK(j < ids.size(), "merge_state: more statistics than Gaussians");
            all.grad_accum[j] = r.get<float>();
            all.denom[j] = r.get<std::int32_t>();
            all.max_radii[j] = r.get<float>();
        }
    }
    RADIANT_CHECK(j == ids.size(), "merge_state: fewer statistics than Gaussians");
    const std::vector<std::size_t> order = id_order(ids, "merge_state");
    state.params = gather_rows(scene, order);
    state.adam.m = gather_rows(m, order);
    state.adam.v = gather_rows(v, order);
    state.adam.step = share.adam.step;
    state.stats.reset(ids.size());
    ids_out.resize(ids.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        ids_out[k] = ids[order[k]];
        state.stats.grad_accum[k] = all.grad_accum[order[k]];
        state.stats.denom[k] = all.denom[order[k]];
        state.stats.max_radii[k] = all.max_radii[order[k]];
    }
    return state;
}

}  // namespace radiant::distributed
