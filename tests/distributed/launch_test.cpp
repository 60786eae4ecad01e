#include "radiant/distributed/launch.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "radiant/core/error.hpp"
#include "radiant/io/file.hpp"
#include "support/temp_dir.hpp"

namespace radiant::distributed {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

RankPlace place_in(const std::map<std::string, std::string>& vars) {
    return rank_place([&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

TEST(RankPlace, RadiantsLauncherOpenMpiOrOneProcess) {
    const RankPlace one = place_in({});
    EXPECT_EQ(one.world, 1);
    EXPECT_EQ(one.source, "");
    const RankPlace ours =
        place_in({{"RADIANT_RANK", "2"}, {"RADIANT_WORLD_SIZE", "4"}, {"RADIANT_LOCAL_RANK", "2"}});
    EXPECT_EQ(ours.rank, 2);
    EXPECT_EQ(ours.world, 4);
    EXPECT_EQ(ours.source, "radiant");
    const RankPlace mpi = place_in(
        {{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}});
    EXPECT_EQ(mpi.rank, 5);
    EXPECT_EQ(mpi.world, 8);
    EXPECT_EQ(mpi.local, 1);
    EXPECT_EQ(mpi.source, "mpirun");
    // Bad values are errors naming the variable.
    for (const std::map<std::string, std::string>& bad :
         {std::map<std::string, std::string>{{"RADIANT_RANK", "1"}},
          std::map<std::string, std::string>{{"RADIANT_RANK", "x"}, {"RADIANT_WORLD_SIZE", "2"}},
          std::map<std::string, std::string>{{"RADIANT_RANK", "2"}, {"RADIANT_WORLD_SIZE", "2"}},
          std::map<std::string, std::string>{{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "0"}},
          std::map<std::string, std::string>{{"RADIANT_RANK", "0"}, {"RADIANT_WORLD_SIZE", "2 "}}}) {
        try {
            place_in(bad);
            ADD_FAILURE() << "accepted " << bad.begin()->first << "=" << bad.begin()->second;
        } catch (const Error& e) {
            EXPECT_NE(std::strstr(e.what(), bad.count("RADIANT_RANK") ? "RADIANT_" : "OMPI_COMM_WORLD_"),
                      nullptr)
                << e.what();
        }
    }
}

TEST(LaunchRanks, EveryRankRunsWithItsPlace) {
    test::TempDir dir;
    const LaunchResult r = launch_ranks(
        3,
        {"sh", "-c",
         "echo $RADIANT_RANK $RADIANT_WORLD_SIZE $RADIANT_LOCAL_RANK $EXTRA > \"$OUT/rank$RADIANT_RANK\""},
        {{"OUT", dir.str()}, {"EXTRA", "x"}});
    EXPECT_EQ(r.failed_rank, -1) << r.what;
    for (int k = 0; k < 3; ++k)
        EXPECT_EQ(read_file((dir / ("rank" + std::to_string(k))).string()),
                  std::to_string(k) + " 3 " + std::to_string(k) + " x\n");
}

// A rank that fails ends the run: the others are stopped at once, not left training for nothing.
TEST(LaunchRanks, OneFailingRankStopsTheOthers) {
    const auto start = steady_clock::now();
    const LaunchResult r = launch_ranks(
        4, {"sh", "-c", "if [ \"$RADIANT_RANK\" = 2 ]; then sleep 0.2; exit 3; fi; exec sleep 30"});
    EXPECT_EQ(r.failed_rank, 2);
    EXPECT_EQ(r.what, "exit status 3");
    EXPECT_FALSE(r.stopped);
    EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(10));
}

// A rank that ignores SIGTERM is killed after the grace period.
TEST(LaunchRanks, StopEndsEveryRankAndKillsAfterTheGrace) {
    const auto start = steady_clock::now();
    const LaunchResult r = launch_ranks(
        2, {"sh", "-c", "trap '' TERM; sleep 30"}, {},
        [&] { return steady_clock::now() - start > milliseconds(200); }, milliseconds(300));
    EXPECT_TRUE(r.stopped);
    EXPECT_EQ(r.failed_rank, -1);
    EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(LaunchRanks, AProgramThatCannotStartIsNamed) {
    const LaunchResult r = launch_ranks(2, {"/nonexistent/radiant"});
    EXPECT_GE(r.failed_rank, 0);
    EXPECT_NE(r.what.find("could not start /nonexistent/radiant"), std::string::npos) << r.what;
}

TEST(ShareNcclId, EveryRankGetsRankZerosIdAndNotAnEarlierRunsOne) {
    test::TempDir dir;
    NcclUniqueId stale{}, id{}, none{};
    std::memset(stale.internal, 7, sizeof stale.internal);
    for (std::size_t i = 0; i < sizeof id.internal; ++i) id.internal[i] = char(i);
    share_nccl_id(dir.str(), "run-a", 0, stale);  // an earlier run's file stays in the folder
    std::vector<NcclUniqueId> got(4);
    std::vector<std::thread> ranks;
    for (int r = 1; r < 4; ++r)
        ranks.emplace_back([&, r] { got[std::size_t(r)] = share_nccl_id(dir.str(), "run-b", r, none); });
    std::this_thread::sleep_for(milliseconds(100));
    got[0] = share_nccl_id(dir.str(), "run-b", 0, id);
    for (std::thread& t : ranks) t.join();
    for (const NcclUniqueId& g : got) EXPECT_EQ(std::memcmp(g.internal, id.internal, sizeof id.internal), 0);
    // No rank 0: an error naming the file, after the timeout.
    try {
        share_nccl_id(dir.str(), "run-c", 1, none, milliseconds(100));
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(".nccl-id-run-c"), std::string::npos) << e.what();
    }
    // A file that is not an id.
    write_file_atomic((dir / ".nccl-id-run-d").string(), std::string_view("short"));
    EXPECT_THROW(share_nccl_id(dir.str(), "run-d", 1, none), IoError);
}

}  // namespace
}  // namespace radiant::distributed
