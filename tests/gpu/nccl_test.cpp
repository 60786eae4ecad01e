// Issue 25 item 2 on a GPU: NCCL loaded at run time works — a one-rank communicator all-reduces device
// memory and sends to itself — and NcclCommunicator carries Gaussian-parallel training as the in-process
// communicator does. (Several ranks need a machine with several GPUs: NCCL refuses two ranks on one.)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <vector>

#include "distributed/fixture.hpp"
#include "radiant/core/error.hpp"
#include "radiant/distributed/nccl_communicator.hpp"
#include "radiant/distributed/nccl_library.hpp"
#include "radiant/distributed/parallel_training.hpp"
#include "radiant/io/file.hpp"
#include "radiant/render/cuda/cuda_check.hpp"
#include "radiant/render/cuda/device_buffer.hpp"
#include "support/temp_dir.hpp"

namespace radiant::distributed {
namespace {

TEST(Nccl, OneRankAllReducesAndSendsToItself) {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    std::shared_ptr<const NcclLibrary> nccl;
    try {
        nccl = NcclLibrary::load();
    } catch (const Error& e) {
        GTEST_SKIP() << e.what();  // single-GPU users need no NCCL
    }
    std::printf("[nccl] %s, version %d\n", nccl->path().c_str(), nccl->version());
    NcclUniqueId id{};
    nccl->check(nccl->get_unique_id(&id), "ncclGetUniqueId");
    NcclLibrary::Comm comm = nullptr;
    nccl->check(nccl->comm_init_rank(&comm, 1, id, 0), "ncclCommInitRank");
    constexpr std::size_t n = 1000;
    std::vector<float> host(n);
    std::iota(host.begin(), host.end(), 1.0f);
    float *a = nullptr, *b = nullptr;
    RADIANT_CUDA_CHECK(cudaMalloc(&a, n * sizeof(float)));
    RADIANT_CUDA_CHECK(cudaMalloc(&b, n * sizeof(float)));
    RADIANT_CUDA_CHECK(cudaMemcpy(a, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    nccl->check(nccl->all_reduce(a, a, n, NcclLibrary::kFloat32, NcclLibrary::kSum, comm, nullptr),
                "ncclAllReduce");
    nccl->check(nccl->group_start(), "ncclGroupStart");
    nccl->check(nccl->send(a, n, NcclLibrary::kFloat32, 0, comm, nullptr), "ncclSend");
    nccl->check(nccl->recv(b, n, NcclLibrary::kFloat32, 0, comm, nullptr), "ncclRecv");
    nccl->check(nccl->group_end(), "ncclGroupEnd");
    std::vector<float> back(n);
    RADIANT_CUDA_CHECK(cudaMemcpy(back.data(), b, n * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(back, host);
    RADIANT_CUDA_CHECK(cudaFree(a));
    RADIANT_CUDA_CHECK(cudaFree(b));
    nccl->check(nccl->comm_destroy(comm), "ncclCommDestroy");
}

// NCCL and a GPU, or the reason the test skips.
std::shared_ptr<const NcclLibrary> nccl_or_skip_reason(std::string& why) {
    if (!cuda::device_available()) {
        why = "no CUDA device";
        return nullptr;
    }
    try {
        return NcclLibrary::load();
    } catch (const Error& e) {
        why = e.what();
        return nullptr;
    }
}

std::unique_ptr<NcclCommunicator> one_rank(const std::shared_ptr<const NcclLibrary>& nccl) {
    NcclUniqueId id{};
    nccl->check(nccl->get_unique_id(&id), "ncclGetUniqueId");
    return std::make_unique<NcclCommunicator>(nccl, id, 0, 1, 0);
}

TEST(Nccl, CommunicatorSendsBytesAndSumsValues) {
    std::string why;
    const auto nccl = nccl_or_skip_reason(why);
    if (!nccl) GTEST_SKIP() << why;
    const auto comm = one_rank(nccl);
    EXPECT_EQ(comm->rank(), 0);
    EXPECT_EQ(comm->size(), 1);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(3 << 20)}) {
        Bytes b(n);
        for (std::size_t i = 0; i < n; ++i) b[i] = std::byte(i * 7 + 3);
        const std::vector<Bytes> back = comm->all_to_all({b});
        ASSERT_EQ(back.size(), 1u);
        EXPECT_EQ(back[0], b) << n << " bytes";
    }
    std::vector<double> v{1.5, -2.25, 1e300, 0.0};
    const std::vector<double> before = v;
    comm->all_reduce_sum(v);
    EXPECT_EQ(v, before);
    EXPECT_THROW(comm->all_to_all({Bytes(4), Bytes(4)}), Error);  // two buffers for one rank
    // What a training step's small all-reduces cost (a step takes two), for bench/RESULTS.md.
    constexpr int kRounds = 200;
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < kRounds; ++k) comm->all_reduce_sum(v);
    const double us = 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[nccl] an all-reduce of 4 values on one rank: %.1f us\n", us / kRounds);
}

// exchange() from and into GPU memory, with no copy through the host: three segments (one empty, one of
// 3 MiB) to itself, received where an empty segment stands elsewhere.
TEST(Nccl, ExchangeSendsDeviceSegmentsInPlace) {
    std::string why;
    const auto nccl = nccl_or_skip_reason(why);
    if (!nccl) GTEST_SKIP() << why;
    const auto comm = one_rank(nccl);
    const std::size_t big = 3 << 20;
    Bytes host(big + 5);
    for (std::size_t i = 0; i < host.size(); ++i) host[i] = std::byte(i * 13 + 1);
    cuda::DeviceBuffer<std::byte> from, to;
    from.upload(host);
    to.resize_discard(host.size());
    to.zero();
    struct Space final : BufferSpace {
        bool device() const override { return true; }
        void copy(void* t, const void* f, std::size_t n) const override {
            RADIANT_CUDA_CHECK(cudaMemcpy(t, f, n, cudaMemcpyDefault));
        }
    } space;
    comm->exchange({{{from.data(), 5}, {from.data() + 5, 0}, {from.data() + 5, big}}},
                   {{{to.data(), 0}, {to.data(), 5}, {to.data() + 5, big}}}, space);
    EXPECT_EQ(to.download(), host);
}

// The Gaussian-parallel loop (ADC, an opacity reset, checkpoints: the CPU tests' short run) over NCCL writes
// the bytes the in-process communicator's run writes.
TEST(Nccl, GaussianParallelTrainingOverNcclIsTheInProcessRun) {
    std::string why;
    const auto nccl = nccl_or_skip_reason(why);
    if (!nccl) GTEST_SKIP() << why;
    const test_data::Fixture f(8);
    std::vector<BatchView> views;
    for (std::size_t v = 0; v < f.cameras.size(); ++v) views.push_back({&f.cameras[v], &f.targets[v], v});
    test::TempDir dir;
    const auto comm = one_rank(nccl);
    const ParallelTrainResult over_nccl =
        train_gaussian_parallel(*comm, f.start, views, test_data::short_run((dir / "nccl").string()));
    ParallelTrainResult in_process;
    run_in_process(1, [&](Communicator& c) {
        in_process =
            train_gaussian_parallel(c, f.start, views, test_data::short_run((dir / "threads").string()));
    });
    std::printf(
        "[nccl training] %zu → %zu Gaussians; loss %.4f at the start, %.4f at the end (20 steps after the "
        "opacity reset)\n",
        f.start.size(), over_nccl.scene.size(), over_nccl.losses.front(), over_nccl.losses.back());
    EXPECT_GT(over_nccl.scene.size(), f.start.size());
    EXPECT_EQ(over_nccl.losses, in_process.losses);
    EXPECT_EQ(read_file((dir / "nccl" / "scene.ply").string()),
              read_file((dir / "threads" / "scene.ply").string()));
}

}  // namespace
}  // namespace radiant::distributed
