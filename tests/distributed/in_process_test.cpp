#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "radiant/core/error.hpp"
#include "radiant/distributed/communicator.hpp"

namespace radiant::distributed {
namespace {

Bytes text(const std::string& s) {
    Bytes b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    return b;
}

std::string str(const Bytes& b) {
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

TEST(InProcess, AllToAllDeliversEveryBufferToItsRank) {
    for (int ranks : {1, 2, 3, 4}) {
        std::atomic<int> checked{0};
        run_in_process(ranks, [&](Communicator& c) {
            for (int round = 0; round < 3; ++round) {  // the mailbox is reused: nothing of a round leaks
                std::vector<Bytes> send;
                for (int d = 0; d < c.size(); ++d)
                    send.push_back(text(std::to_string(round) + ":" + std::to_string(c.rank()) + "->" +
                                        std::to_string(d)));
                const std::vector<Bytes> got = c.all_to_all(send);
                ASSERT_EQ(int(got.size()), ranks);
                for (int s = 0; s < ranks; ++s)
                    EXPECT_EQ(str(got[std::size_t(s)]), std::to_string(round) + ":" + std::to_string(s) +
                                                            "->" + std::to_string(c.rank()));
            }
            ++checked;
        });
        EXPECT_EQ(checked, ranks);
    }
}

TEST(InProcess, SumsAreTheSameBitsOnEveryRank) {
    std::vector<std::vector<double>> results(4);
    run_in_process(4, [&](Communicator& c) {
        // Values whose sum depends on the order of addition: every rank must add in rank order.
        std::vector<double> v{c.rank() == 0 ? 1e16 : 1.0, 0.1 * (c.rank() + 1)};
        c.all_reduce_sum(v);
        results[std::size_t(c.rank())] = v;
    });
    for (const auto& r : results) EXPECT_EQ(r, results[0]);
    EXPECT_DOUBLE_EQ(results[0][1], 0.1 + 0.2 + 0.30000000000000004 + 0.4);
}

TEST(InProcess, AFailingRankStopsTheOthersAndItsErrorIsRethrown) {
    try {
        run_in_process(3, [&](Communicator& c) {
            if (c.rank() == 1) throw Error("rank 1 could not read its images");
            c.all_to_all(std::vector<Bytes>(3));  // ranks 0 and 2 would wait here forever
            c.all_to_all(std::vector<Bytes>(3));
        });
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "rank 1 could not read its images");
    }
}

}  // namespace
}  // namespace radiant::distributed
