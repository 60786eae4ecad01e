// The in-process communicator: ranks are threads sharing one mailbox; each collective is a write, a
// barrier, a read and a barrier (the second keeps a fast rank from overwriting a slot still being read).
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "radiant/core/error.hpp"
#include "radiant/distributed/communicator.hpp"

namespace radiant::distributed {
namespace {

class Mailbox {
  public:
    explicit Mailbox(int ranks)
        : ranks_(ranks), bytes_(std::size_t(ranks) * std::size_t(ranks)), sums_(std::size_t(ranks)) {}

    int ranks() const { return ranks_; }
    Bytes& slot(int from, int to) {
        return bytes_[std::size_t(from) * std::size_t(ranks_) + std::size_t(to)];
    }
    std::vector<double>& sum_slot(int rank) { return sums_[std::size_t(rank)]; }

    void barrier() {
        std::unique_lock lock(mutex_);
        if (aborted_) throw Error("another rank failed");
        const long generation = generation_;
        if (++arrived_ == ranks_) {
            arrived_ = 0;
            ++generation_;
            changed_.notify_all();
            return;
        }
        changed_.wait(lock, [&] { return generation_ != generation || aborted_; });
        if (aborted_) throw Error("another rank failed");
    }

    void abort() {
        std::lock_guard lock(mutex_);
        aborted_ = true;
        changed_.notify_all();
    }

  private:
    int ranks_;
    std::vector<Bytes> bytes_;  // [from, to]
    std::vector<std::vector<double>> sums_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int arrived_ = 0;
    long generation_ = 0;
    bool aborted_ = false;
};

class InProcessCommunicator final : public Communicator {
  public:
    InProcessCommunicator(Mailbox& box, int rank) : box_(box), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return box_.ranks(); }

    std::vector<Bytes> all_to_all(std::vector<Bytes> send) override {
        RADIANT_CHECK(int(send.size()) == size(), "all_to_all: one buffer per rank");
        for (int d = 0; d < size(); ++d) box_.slot(rank_, d) = std::move(send[std::size_t(d)]);
        box_.barrier();
        std::vector<Bytes> received(static_cast<std::size_t>(size()));
        for (int s = 0; s < size(); ++s) received[std::size_t(s)] = box_.slot(s, rank_);
        box_.barrier();
        return received;
    }

    void all_reduce_sum(std::vector<double>& values) override {
        box_.sum_slot(rank_) = values;
        box_.barrier();
        for (int s = 0; s < size(); ++s)
            RADIANT_CHECK(box_.sum_slot(s).size() == values.size(),
                          "all_reduce_sum: ranks disagree on the size");
        for (std::size_t i = 0; i < values.size(); ++i) {
            double sum = 0;
            for (int s = 0; s < size(); ++s) sum += box_.sum_slot(s)[i];
            values[i] = sum;
        }
        box_.barrier();
    }

  private:
    Mailbox& box_;
    int rank_;
};

}  // namespace

void run_in_process(int ranks, const std::function<void(Communicator&)>& body) {
    RADIANT_CHECK(ranks >= 1, "run_in_process: at least one rank");
    Mailbox box(ranks);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            InProcessCommunicator comm(box, r);
            try {
                body(comm);
            } catch (...) {
                errors[std::size_t(r)] = std::current_exception();
                box.abort();
            }
        });
    for (auto& t : threads) t.join();
    // The first rank to fail is the one whose error says what went wrong; the others only saw the abort.
    for (const auto& e : errors)
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const Error& err) {
                if (std::string(err.what()).find("another rank failed") != std::string::npos) continue;
                throw;
            }
        }
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace radiant::distributed
