#include <algorithm>

#include "radiant/core/sh.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "stages.hpp"

namespace radiant::cuda {
namespace {

constexpr int kBlock = 256;

// `rest`: an SH element past the DC coefficient, updated at the group's rest_lr.
__device__ __forceinline__ int update_one(const AdamGroup& g, bool rest, float& p, float gr, float& m,
                                          float& v) {
    AdamElementConfig c = g.config;
    if (rest) c.lr = g.rest_lr;
    return adam_update(p, gr, m, v, c);
}

// Whether element i of a group is an SH element past the DC coefficient. 32-bit index arithmetic: a 64-bit
// division per element would cost more than the update itself.
__device__ __forceinline__ bool is_rest(const AdamGroup& g, std::size_t i) {
    return g.sh_coeffs > 0 && (unsigned(i) / 3u) % unsigned(g.sh_coeffs) != 0u;
}

// Whether element i's Gaussian is updated (all when the group has no radii).
__device__ __forceinline__ bool updated(const AdamGroup& g, std::size_t i) {
    return g.radii == nullptr || g.radii[unsigned(i) / unsigned(g.per)] > 0;
}

// Adam bad-value counts of one thread, added to AdamArgs::bad once at its end.
struct BadCounts {
    unsigned grads = 0, rejected = 0, params = 0;
    __device__ void add(int flags) {
        grads += (flags & kAdamBadGrad) != 0;
        rejected += (flags & kAdamRejected) != 0;
        params += (flags & kAdamBadParam) != 0;
    }
    __device__ void flush(unsigned* bad) const {
        if (grads) atomicAdd(&bad[0], grads);
        if (rejected) atomicAdd(&bad[1], rejected);
        if (params) atomicAdd(&bad[2], params);
    }
};

// Which of elements 4q … 4q+3 are updated (AdamGroup::radii); false when none is.
__device__ __forceinline__ bool updated4(const AdamGroup& g, std::size_t q, bool mask[4]) {
    bool any = g.radii == nullptr;
#pragma unroll
    for (int k = 0; k < 4; ++k) mask[k] = true;
    if (!any) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            mask[k] = updated(g, 4 * q + k);
            any = any || mask[k];
        }
    }
    return any;
}

// Elements 4q … 4q+3 with gradients gr, 16-byte loads and stores (every group is its own allocation, so
// 16-byte aligned). Both paths of the SH group go through here, so that the compiler makes the same code of
// the update, to the bit.
__device__ __forceinline__ void update4(const AdamGroup& g, std::size_t q, const bool mask[4],
                                        const bool rest[4], float4 gr, BadCounts& bad) {
    float4 p = reinterpret_cast<const float4*>(g.params)[q];
    float4 m = reinterpret_cast<const float4*>(g.m)[q];
    float4 v = reinterpret_cast<const float4*>(g.v)[q];
    if (mask[0]) bad.add(update_one(g, rest[0], p.x, gr.x, m.x, v.x));
    if (mask[1]) bad.add(update_one(g, rest[1], p.y, gr.y, m.y, v.y));
    if (mask[2]) bad.add(update_one(g, rest[2], p.z, gr.z, m.z, v.z));
    if (mask[3]) bad.add(update_one(g, rest[3], p.w, gr.w, m.w, v.w));
    reinterpret_cast<float4*>(g.params)[q] = p;
    reinterpret_cast<float4*>(g.m)[q] = m;
    reinterpret_cast<float4*>(g.v)[q] = v;
}

// Element i alone (a group's last elements past its float4s), gradient gr.
__device__ __forceinline__ void update1(const AdamGroup& g, std::size_t i, float gr, BadCounts& bad) {
    bad.add(update_one(g, is_rest(g, i), g.params[i], gr, g.m[i], g.v[i]));
}

// The SH group when its gradient comes as sources (AdamGroup::sh_sources): a block takes kShChunk
// Gaussians at a time, forms the gradient rows of those the scope updates in shared memory (one thread a
// Gaussian: its basis once, every index a constant), then updates their elements as the plain path does,
// reading the gradient from shared memory instead of global. Rows are padded to an odd stride so the row
// writes do not collide on banks. A chunk starts at a multiple of 4 elements (kShChunk is), so only the
// group's last chunk can end inside a float4: those elements go one by one, as the plain path's tail.
// Which Gaussian an element belongs to and whether it is past the DC coefficient are found within the chunk:
// with kRow (the row's floats, 3 × sh_coeffs) a constant those are a multiply and a shift, where the plain
// path's runtime divisions cost as much per element as the update itself; kRow 0 takes the row at run time.
constexpr int kShChunk = 128;
constexpr int kShStride = 3 * kMaxShCoeffs + 1;

struct ShChunk {
    float rows[kShChunk * kShStride];
    bool seen[kShChunk];
};

// block and blocks: this block's index among its group's, and their number (AdamGrid); chunk: the block's
// shared memory (one for both instantiations).
template <int kRow>
__device__ void adam_sh_from_sources(const AdamGroup& g, unsigned block, unsigned blocks, ShChunk& chunk,
                                     BadCounts& bad) {
    float* rows = chunk.rows;
    bool* seen = chunk.seen;
    const unsigned row = kRow > 0 ? unsigned(kRow) : 3u * unsigned(g.sh_coeffs);
    const std::size_t gaussians = g.n / row;
    auto grad = [&](unsigned e) {  // element e of the chunk
        const unsigned gi = e / row;
        return rows[gi * kShStride + (e - gi * row)];
    };
    for (std::size_t first = std::size_t(block) * kShChunk; first < gaussians;
         first += std::size_t(blocks) * kShChunk) {
        const unsigned count = unsigned(std::min<std::size_t>(kShChunk, gaussians - first));
        if (threadIdx.x < count) {
            const std::size_t gaussian = first + threadIdx.x;
            const bool s = g.radii == nullptr || g.radii[gaussian] > 0;
            seen[threadIdx.x] = s;
            // An unseen Gaussian's row is zeros, never its sources: where a row is not a whole number of
            // float4s, one float4 holds elements of a seen and an unseen Gaussian, and the unseen one's
            // gradient is read with the others' but not used.
            float b[kMaxShCoeffs] = {};
            Vec3<float> v_colour{};
            if (s) {
                const float* src = g.sh_sources + 6 * gaussian;
                v_colour = {src[0], src[1], src[2]};
                sh_basis(kMaxShDegree, Vec3<float>{src[3], src[4], src[5]}, b);
            }
            float* r = rows + threadIdx.x * kShStride;
            RADIANT_UNROLL
            for (int k = 0; k < kMaxShCoeffs; ++k) {
                if (k >= g.sh_coeffs) break;
                RADIANT_UNROLL
                for (int c = 0; c < 3; ++c) r[3 * k + c] = sh_coeff_grad(b[k], v_colour[c], k < g.sh_active);
            }
        }
        __syncthreads();
        const std::size_t base = first * row;
        const unsigned elements = count * row, whole = elements / 4u;
        for (unsigned f = threadIdx.x; f < whole; f += blockDim.x) {
            bool mask[4], rest[4], any = false;
            RADIANT_UNROLL
            for (int k = 0; k < 4; ++k) {
                const unsigned e = 4 * f + unsigned(k);
                mask[k] = seen[e / row];
                rest[k] = e % row >= 3u;  // the chunk starts a row, so this is is_rest() of base + e
                any = any || mask[k];
            }
            if (!any) continue;
            update4(g, base / 4 + f, mask, rest,
                    make_float4(grad(4 * f), grad(4 * f + 1), grad(4 * f + 2), grad(4 * f + 3)), bad);
        }
        for (unsigned e = 4u * whole + threadIdx.x; e < elements; e += blockDim.x)
            if (seen[e / row])
                bad.add(
                    update_one(g, e % row >= 3u, g.params[base + e], grad(e), g.m[base + e], g.v[base + e]));
        __syncthreads();
    }
}

// Each group gets the blocks it needs, one after another in a one-dimensional grid: first[k] is group k's
// first block (first[count] the grid's size). A two-dimensional grid sized by the largest group launched
// thousands of blocks that found nothing to do in the smaller ones.
struct AdamGrid {
    unsigned first[6];
};

// Fused Adam: the block's place in the grid picks the group; each thread updates four consecutive elements at
// a time (update4), the group's first block takes the tail. Each element is the shared core update
// (core/adam_update.hpp), so the GPU and the CPU optimizer agree to float rounding. With radii, four elements
// none of whose Gaussians is visible are not loaded at all: that is what makes a view of part of the scene
// cheaper.
__global__ void adam_kernel(AdamArgs a, AdamGrid grid) {
    int k = 0;
    while (k + 1 < a.count && blockIdx.x >= grid.first[k + 1]) ++k;
    const AdamGroup& g = a.groups[k];
    const unsigned block = blockIdx.x - grid.first[k], blocks = grid.first[k + 1] - grid.first[k];
    BadCounts bad;
    if (g.sh_sources) {
        __shared__ ShChunk chunk;
        // degree 3, the default and the most common: the row as a constant
        if (g.sh_coeffs == kMaxShCoeffs)
            adam_sh_from_sources<3 * kMaxShCoeffs>(g, block, blocks, chunk, bad);
        else
            adam_sh_from_sources<0>(g, block, blocks, chunk, bad);
    } else {
        const std::size_t n4 = g.n / 4;
        for (std::size_t q = std::size_t(block) * blockDim.x + threadIdx.x; q < n4;
             q += std::size_t(blocks) * blockDim.x) {
            bool mask[4], rest[4];
            if (!updated4(g, q, mask)) continue;
            RADIANT_UNROLL
            for (int k = 0; k < 4; ++k) rest[k] = is_rest(g, 4 * q + k);
            update4(g, q, mask, rest, reinterpret_cast<const float4*>(g.grads)[q], bad);
        }
        if (block == 0)
            for (std::size_t i = 4 * n4 + threadIdx.x; i < g.n; i += blockDim.x)
                if (updated(g, i)) update1(g, i, g.grads[i], bad);
    }
    bad.flush(a.bad);
}

__global__ void normalize_quats_kernel(float* q, std::size_t n, const std::int32_t* radii) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n || (radii != nullptr && radii[i] <= 0)) return;
    float4 v = reinterpret_cast<float4*>(q)[i];
    const float len = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w);
    if (len > 0.f && isfinite(len))
        v = make_float4(v.x / len, v.y / len, v.z / len, v.w / len);
    else
        v = make_float4(1.f, 0.f, 0.f, 0.f);
    reinterpret_cast<float4*>(q)[i] = v;
}

__global__ void add_into_kernel(float* into, const float* from, std::size_t n) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) into[i] += from[i];
}

}  // namespace

void launch_adam(const AdamArgs& a, cudaStream_t stream) {
    RADIANT_CHECK(a.count >= 1 && a.count <= 5, "Adam: 1 to 5 parameter groups");
    AdamGrid grid{};
    std::size_t total = 0;
    for (int k = 0; k < a.count; ++k) {
        const AdamGroup& g = a.groups[k];
        // A block takes kBlock float4s of a plain group, or kShChunk Gaussians of SH formed from sources; at
        // least one (the tail, the empty group), at most 8192 (the loops stride over the rest).
        const std::size_t units = g.sh_sources
                                      ? (g.n / std::size_t(3 * g.sh_coeffs) + kShChunk - 1) / kShChunk
                                      : (g.n / 4 + kBlock - 1) / kBlock;
        grid.first[k] = unsigned(total);
        total += std::clamp<std::size_t>(units, 1, 8192);
    }
    grid.first[a.count] = unsigned(total);
    bool any = false;
    for (int k = 0; k < a.count; ++k) any = any || a.groups[k].n > 0;
    if (!any) return;
    adam_kernel<<<unsigned(total), kBlock, 0, stream>>>(a, grid);
    RADIANT_CUDA_CHECK_LAUNCH("adam_kernel");
}

void launch_normalize_quats(float* quats, std::size_t n, const std::int32_t* radii, cudaStream_t stream) {
    if (n == 0) return;
    normalize_quats_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(quats, n, radii);
    RADIANT_CUDA_CHECK_LAUNCH("normalize_quats_kernel");
}

void launch_add_into(float* into, const float* from, std::size_t n, cudaStream_t stream) {
    if (n == 0) return;
    add_into_kernel<<<unsigned((n + kBlock - 1) / kBlock), kBlock, 0, stream>>>(into, from, n);
    RADIANT_CUDA_CHECK_LAUNCH("add_into_kernel");
}

}  // namespace radiant::cuda
