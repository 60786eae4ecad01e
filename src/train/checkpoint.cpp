#include "radiant/train/checkpoint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"

namespace radiant {
namespace {

constexpr char kMagic[8] = {'R', 'A', 'D', 'C', 'K', 'P', 'T', '1'};
// Sections after the first version's last field; a checkpoint written before them simply ends there.
constexpr std::uint32_t kAppearanceSection = 0x31505041;  // "APP1"
constexpr std::uint32_t kPoseSection = 0x31534f50;        // "POS1"
constexpr std::uint32_t kRanksSection = 0x314b4e52;       // "RNK1"

class Writer {
  public:
    explicit Writer(std::string& out) : out_(out) {}
    template <class V>
    void put(const V& v) {
        out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    template <class V>
    void put_vector(const std::vector<V>& v) {
        put<std::uint64_t>(v.size());
        out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(V));
    }
    void put_string(const std::string& s) {
        put<std::uint64_t>(s.size());
        out_ += s;
    }
    void put_scene(const Scene& s) {
        put<std::int32_t>(s.sh_degree);
        put_vector(s.means);
        put_vector(s.log_scales);
        put_vector(s.quats);
        put_vector(s.opacity_logits);
        put_vector(s.sh);
    }

  private:
    std::string& out_;
};

class Reader {
  public:
    Reader(std::string_view b, const std::string& name) : b_(b), name_(name) {}
    template <class V>
    V get() {
        need(sizeof(V));
        V v;
        std::memcpy(&v, b_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    template <class V>
    std::vector<V> get_vector() {
        const auto n = get<std::uint64_t>();
        if (n > (b_.size() - pos_) / sizeof(V))
            throw IoError(name_, fmt::format("truncated at byte {}", pos_));
        std::vector<V> v(static_cast<std::size_t>(n));
        // An empty vector's data() may be null, which memcpy must never see (UBSan), even for 0 bytes.
        if (n > 0) std::memcpy(v.data(), b_.data() + pos_, std::size_t(n) * sizeof(V));
        pos_ += std::size_t(n) * sizeof(V);
        return v;
    }
    std::string get_string() {
        const auto n = get<std::uint64_t>();
        need(std::size_t(n));
        std::string s(b_.substr(pos_, std::size_t(n)));
        pos_ += std::size_t(n);
        return s;
    }
    Scene get_scene() {
        Scene s;
        s.sh_degree = get<std::int32_t>();
        s.means = get_vector<float>();
        s.log_scales = get_vector<float>();
        s.quats = get_vector<float>();
        s.opacity_logits = get_vector<float>();
        s.sh = get_vector<float>();
        return s;
    }
    bool at_end() const { return pos_ == b_.size(); }

  private:
    void need(std::size_t n) {
        if (b_.size() - pos_ < n) throw IoError(name_, fmt::format("truncated at byte {}", pos_));
    }
    std::string_view b_;
    const std::string& name_;
    std::size_t pos_ = 0;
};

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
    write_file_atomic(path, checkpoint_bytes(c));
}

std::string checkpoint_bytes(const Checkpoint& c) {
    std::string out(kMagic, sizeof kMagic);
    Writer w(out);
    w.put_string(c.config_json);
    w.put<std::int64_t>(c.step);
    w.put_scene(c.state.params);
    w.put_scene(c.state.adam.m);
    w.put_scene(c.state.adam.v);
    w.put<std::int64_t>(c.state.adam.step);
    w.put_vector(c.state.stats.grad_accum);
    w.put_vector(c.state.stats.denom);
    w.put_vector(c.state.stats.max_radii);
    w.put_string(c.view_rng);
    w.put_string(c.background_rng);
    w.put_string(c.densify_rng);
    w.put_vector(c.view_order);
    w.put<std::uint64_t>(c.view_cursor);
    w.put_vector(c.history);
    w.put_vector(c.evals);
    w.put<double>(c.seconds);
    if (c.state.appearance.model != AppearanceModel::off) {
        const AppearanceState& a = c.state.appearance;
        w.put<std::uint32_t>(kAppearanceSection);
        w.put<std::int32_t>(std::int32_t(a.model));
        w.put_vector(a.params);
        w.put_vector(a.m);
        w.put_vector(a.v);
        w.put_vector(a.steps);
    }
    if (!c.poses.empty()) {
        w.put<std::uint32_t>(kPoseSection);
        w.put_vector(c.poses.delta);
        w.put_vector(c.poses.m);
        w.put_vector(c.poses.v);
        w.put_vector(c.poses.steps);
    }
    if (c.ranks > 0) {
        w.put<std::uint32_t>(kRanksSection);
        w.put<std::int32_t>(c.ranks);
        w.put_vector(c.ids);
    }
    return out;
}

Checkpoint read_checkpoint(const std::string& path) {
    return parse_checkpoint(read_file(path), path);
}

Checkpoint parse_checkpoint(std::string_view bytes, const std::string& path) {
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw IoError(path, "not a radiant checkpoint (bad magic)");
    const std::string_view body = bytes.substr(sizeof kMagic);
    Reader r(body, path);
    Checkpoint c;
    c.config_json = r.get_string();
    c.step = long(r.get<std::int64_t>());
    c.state.params = r.get_scene();
    c.state.adam.m = r.get_scene();
    c.state.adam.v = r.get_scene();
    c.state.adam.step = r.get<std::int64_t>();
    c.state.stats.grad_accum = r.get_vector<float>();
    c.state.stats.denom = r.get_vector<std::int32_t>();
    c.state.stats.max_radii = r.get_vector<float>();
    c.view_rng = r.get_string();
    c.background_rng = r.get_string();
    c.densify_rng = r.get_string();
    c.view_order = r.get_vector<std::int32_t>();
    c.view_cursor = std::size_t(r.get<std::uint64_t>());
    c.history = r.get_vector<HistoryPoint>();
    c.evals = r.get_vector<EvalPoint>();
    c.seconds = r.get<double>();
    // Optional sections, each at most once, in the order they are written.
    constexpr std::uint32_t kOrder[] = {kAppearanceSection, kPoseSection, kRanksSection};
    auto rank_of = [&](std::uint32_t section) {
        for (int k = 0; k < 3; ++k)
            if (kOrder[k] == section) return k;
        return -1;
    };
    int last_section = -1;
    while (!r.at_end()) {
        const int section = rank_of(r.get<std::uint32_t>());
        if (section <= last_section) throw IoError(path, "unknown or repeated section after the run");
        last_section = section;
        if (kOrder[section] == kRanksSection) {
            c.ranks = r.get<std::int32_t>();
            c.ids = r.get_vector<std::uint64_t>();
            if (c.ranks < 1) throw IoError(path, fmt::format("a run on {} ranks", c.ranks));
            if (c.ids.size() != c.state.params.size())
                throw IoError(path, "the Gaussians' ids do not match the parameters");
            if (!std::is_sorted(c.ids.begin(), c.ids.end()) ||
                std::adjacent_find(c.ids.begin(), c.ids.end()) != c.ids.end())
                throw IoError(path, "the Gaussians' ids are not increasing");
            continue;
        }
        if (kOrder[section] == kPoseSection) {
            c.poses.delta = r.get_vector<std::array<double, 6>>();
            c.poses.m = r.get_vector<std::array<double, 6>>();
            c.poses.v = r.get_vector<std::array<double, 6>>();
            c.poses.steps = r.get_vector<std::int64_t>();
            validate(c.poses, path);
            continue;
        }
        AppearanceState& a = c.state.appearance;
        const auto model = r.get<std::int32_t>();
        if (model != std::int32_t(AppearanceModel::exposure) &&
            model != std::int32_t(AppearanceModel::bilateral))
            throw IoError(path, fmt::format("unknown appearance model {}", model));
        a.model = AppearanceModel(model);
        a.params = r.get_vector<float>();
        a.m = r.get_vector<float>();
        a.v = r.get_vector<float>();
        a.steps = r.get_vector<std::int64_t>();
        validate(a, path);
    }
    if (!r.at_end()) throw IoError(path, "trailing bytes after the checkpoint");
    validate(c.state.params, path);
    const std::size_t n = c.state.params.size();
    if (c.state.adam.m.size() != n || c.state.adam.v.size() != n || c.state.stats.grad_accum.size() != n ||
        c.state.stats.denom.size() != n || c.state.stats.max_radii.size() != n)
        throw IoError(path, "optimizer or statistics arrays do not match the parameters");
    return c;
}

}  // namespace radiant
