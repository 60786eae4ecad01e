// Issue 25 item 2 on a GPU: NCCL loaded at run time works — a one-rank communicator all-reduces device
// memory and sends to itself. (Several ranks need a machine with several GPUs.)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <vector>

#include "radiant/core/error.hpp"
#include "radiant/distributed/nccl_library.hpp"
#include "radiant/render/cuda/cuda_check.hpp"

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

}  // namespace
}  // namespace radiant::distributed
