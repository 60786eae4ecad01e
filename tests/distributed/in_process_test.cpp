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

// exchange() in place: several segments a rank, empty ones skipped on either side; a receiver that agreed
// to other sizes is told which rank sent what.
TEST(InProcess, ExchangeFillsTheAgreedSegmentsInPlace) {
    run_in_process(3, [&](Communicator& c) {
        const int me = c.rank(), ranks = c.size();
        // Rank r sends rank d "r>" and "dr>d" in three segments, an empty one between.
        std::vector<std::string> out;
        for (int d = 0; d < ranks; ++d) {
            const std::string pre = std::to_string(me) + ">";
            out.push_back(pre);
            out.push_back("");
            out.push_back(std::to_string(d) + pre + std::to_string(d));
        }
        std::vector<std::vector<Segment>> send(static_cast<std::size_t>(ranks)),
            recv(static_cast<std::size_t>(ranks));
        for (int d = 0; d < ranks; ++d)
            for (int k = 0; k < 3; ++k) {
                std::string& s = out[std::size_t(3 * d + k)];
                send[std::size_t(d)].push_back({reinterpret_cast<std::byte*>(s.data()), s.size()});
            }
        // Received into an empty segment, then 2 and 4 bytes.
        std::vector<std::string> in(std::size_t(2 * ranks));
        std::string nothing;
        for (int s = 0; s < ranks; ++s) {
            in[std::size_t(2 * s)].resize(2);
            in[std::size_t(2 * s + 1)].resize(4);
            recv[std::size_t(s)].push_back({reinterpret_cast<std::byte*>(nothing.data()), 0});
            for (int k = 0; k < 2; ++k) {
                std::string& r = in[std::size_t(2 * s + k)];
                recv[std::size_t(s)].push_back({reinterpret_cast<std::byte*>(r.data()), r.size()});
            }
        }
        c.exchange(send, recv, host_space());
        for (int s = 0; s < ranks; ++s)
            EXPECT_EQ(
                in[std::size_t(2 * s)] + in[std::size_t(2 * s + 1)],
                std::to_string(s) + ">" + std::to_string(me) + std::to_string(s) + ">" + std::to_string(me));
    });
    try {
        run_in_process(2, [&](Communicator& c) {
            std::byte bytes[3]{}, room[3]{};
            // Rank 0 sends rank 1 three bytes as 1 + 2; rank 1 agreed to 2 + 1.
            const Segment one{bytes, 1}, two{bytes + 1, 2};
            if (c.rank() == 0)
                c.exchange({{}, {one, two}}, {{}, {}}, host_space());
            else
                c.exchange({{}, {}}, {{{room, 2}, {room + 2, 1}}, {}}, host_space());
        });
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("rank 0 sent segments of 1+2 bytes where 2+1 were agreed"),
                  std::string::npos)
            << e.what();
    }
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
