// Built where nccl.h is found: the calls radiant declares for the NCCL it loads at run time have the types
// nccl.h gives them (enums as int, handles and streams as void*), so a changed signature fails the build.
#include <gtest/gtest.h>
#include <nccl.h>

#include <type_traits>

#include "radiant/distributed/nccl_library.hpp"

namespace radiant::distributed {
namespace {

template <class T>
struct Ours {
    using type = T;
};
template <>
struct Ours<ncclResult_t> {
    using type = int;
};
template <>
struct Ours<ncclDataType_t> {
    using type = int;
};
template <>
struct Ours<ncclRedOp_t> {
    using type = int;
};
template <>
struct Ours<ncclComm_t> {
    using type = void*;
};
template <>
struct Ours<ncclComm_t*> {
    using type = void**;
};
template <>
struct Ours<cudaStream_t> {
    using type = void*;
};
template <>
struct Ours<ncclUniqueId> {
    using type = NcclUniqueId;
};
template <>
struct Ours<ncclUniqueId*> {
    using type = NcclUniqueId*;
};
template <class R, class... A>
struct Ours<R (*)(A...)> {
    using type = typename Ours<R>::type (*)(typename Ours<A>::type...);
};
template <class F>
using ours_t = typename Ours<F>::type;

static_assert(std::is_same_v<ours_t<decltype(&ncclGetUniqueId)>, decltype(NcclLibrary::get_unique_id)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclCommInitRank)>, decltype(NcclLibrary::comm_init_rank)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclCommDestroy)>, decltype(NcclLibrary::comm_destroy)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclAllReduce)>, decltype(NcclLibrary::all_reduce)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclSend)>, decltype(NcclLibrary::send)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclRecv)>, decltype(NcclLibrary::recv)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclGroupStart)>, decltype(NcclLibrary::group_start)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclGroupEnd)>, decltype(NcclLibrary::group_end)>);
static_assert(std::is_same_v<ours_t<decltype(&ncclGetErrorString)>, decltype(NcclLibrary::error_string)>);
static_assert(sizeof(ncclUniqueId) == sizeof(NcclUniqueId));
static_assert(sizeof(ncclResult_t) == sizeof(int) && sizeof(ncclDataType_t) == sizeof(int));
static_assert(int(ncclUint8) == NcclLibrary::kUint8 && int(ncclInt64) == NcclLibrary::kInt64 &&
              int(ncclUint64) == NcclLibrary::kUint64 && int(ncclFloat32) == NcclLibrary::kFloat32 &&
              int(ncclFloat64) == NcclLibrary::kFloat64 && int(ncclSum) == NcclLibrary::kSum);

TEST(NcclLibrary, DeclarationsMatchTheHeader) {
    SUCCEED() << "checked when this file compiled, against NCCL " << NCCL_MAJOR << "." << NCCL_MINOR;
}

}  // namespace
}  // namespace radiant::distributed
