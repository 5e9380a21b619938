#include "thread_collectives.hpp"

#include <torch/torch.h>

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "libreyolo/core/error.hpp"

namespace libreyolo::test {

// One rank's side of the collective in progress.
struct Arrival {
  std::string kind;
  torch::Tensor tensor;  // undefined for barrier
  int root = 0;          // broadcast only
};

// Generation counting: the last rank to arrive computes the result and starts the next
// generation; the others wait for the generation to change. A rank that has not yet read
// generation g's result cannot have arrived at g + 1, so g + 1 cannot overwrite it.
struct Rendezvous {
  Rendezvous(int size, std::chrono::milliseconds wait_limit)
      : world_size(size), timeout(wait_limit), arrivals(static_cast<std::size_t>(size)) {}

  const int world_size;
  const std::chrono::milliseconds timeout;
  std::mutex mutex;
  std::condition_variable changed;
  std::uint64_t generation = 0;
  int arrived = 0;
  int returned = 0;  // ranks whose body has returned in the current run
  std::vector<Arrival> arrivals;
  torch::Tensor result;  // of the last finished generation
  std::string mismatch;  // of the last finished generation; empty when the ranks agreed
  std::optional<std::string> aborted;

  void abort(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!aborted) aborted = why;
    changed.notify_all();
  }

  // A rank that returns while peers wait (or before they call) can never join them: say so at
  // once rather than after the timeout.
  void leave(int rank) {
    std::lock_guard<std::mutex> lock(mutex);
    ++returned;
    if (arrived > 0 && !aborted) {
      aborted = "rank " + std::to_string(rank) + " returned while " + std::to_string(arrived) +
                " rank(s) waited in " + arrivals[first_waiting()].kind;
    }
    changed.notify_all();
  }

  std::size_t first_waiting() const {
    for (std::size_t r = 0; r < arrivals.size(); ++r) {
      if (!arrivals[r].kind.empty()) return r;
    }
    return 0;
  }
};

namespace {

std::string describe(int rank, const Arrival& arrival) {
  std::string text = "rank " + std::to_string(rank) + " called " + arrival.kind;
  if (arrival.tensor.defined()) {
    text += " on " + c10::str(arrival.tensor.sizes()) + " " + std::string(c10::toString(arrival.tensor.scalar_type()));
  }
  if (arrival.kind == "broadcast") text += " from root " + std::to_string(arrival.root);
  return text;
}

// Empty when every rank called the same collective on the same shape and dtype.
std::string find_mismatch(const std::vector<Arrival>& arrivals) {
  const auto& first = arrivals.front();
  for (std::size_t r = 1; r < arrivals.size(); ++r) {
    const auto& other = arrivals[r];
    const bool same = other.kind == first.kind && other.root == first.root &&
                      other.tensor.defined() == first.tensor.defined() &&
                      (!first.tensor.defined() || (other.tensor.sizes() == first.tensor.sizes() &&
                                                   other.tensor.scalar_type() == first.tensor.scalar_type()));
    if (!same) return describe(0, first) + " but " + describe(static_cast<int>(r), other);
  }
  return {};
}

torch::Tensor combine(const std::vector<Arrival>& arrivals) {
  const auto& first = arrivals.front();
  if (first.kind == "all_reduce_sum") {
    auto sum = first.tensor.detach().clone();
    for (std::size_t r = 1; r < arrivals.size(); ++r) sum.add_(arrivals[r].tensor.detach().to(sum.device()));
    return sum;
  }
  if (first.kind == "broadcast") return arrivals[static_cast<std::size_t>(first.root)].tensor.detach().clone();
  return {};
}

// Deposits this rank's arrival, waits for the others, and returns the combined result.
torch::Tensor meet(Rendezvous& state, int rank, Arrival arrival) {
  torch::NoGradGuard no_grad;
  std::unique_lock<std::mutex> lock(state.mutex);
  const auto failed = [&](const std::string& why) {
    return core::Error("rank " + std::to_string(rank) + "'s " + arrival.kind + " failed", why,
                       "see the first failing rank's error");
  };
  if (!state.aborted && state.returned > 0) {
    state.aborted = "rank " + std::to_string(rank) + " called " + arrival.kind + " after a peer had returned";
    state.changed.notify_all();
  }
  if (state.aborted) throw failed(*state.aborted);
  const auto generation = state.generation;
  state.arrivals[static_cast<std::size_t>(rank)] = arrival;
  if (++state.arrived == state.world_size) {
    state.mismatch = find_mismatch(state.arrivals);
    state.result = state.mismatch.empty() ? combine(state.arrivals) : torch::Tensor();
    for (auto& slot : state.arrivals) slot = Arrival{};
    state.arrived = 0;
    ++state.generation;
    state.changed.notify_all();
  } else {
    const bool done = state.changed.wait_for(lock, state.timeout, [&] {
      return state.generation != generation || state.aborted.has_value();
    });
    if (!done) {
      state.aborted = "rank " + std::to_string(rank) + " waited " + std::to_string(state.timeout.count()) +
                      " ms in " + arrival.kind + " for its peers";
      state.changed.notify_all();
    }
    if (state.generation == generation) throw failed(*state.aborted);
  }
  if (!state.mismatch.empty()) {
    throw core::Error("the ranks called different collectives", state.mismatch,
                      "every rank must call the same collectives in the same order on equal shapes");
  }
  return state.result;
}

class Done final : public core::distributed::PendingCollective {
 public:
  void wait() override {}
};

}  // namespace

ThreadCollectives::ThreadCollectives(std::shared_ptr<Rendezvous> rendezvous, int rank)
    : rendezvous_(std::move(rendezvous)), rank_(rank) {}

int ThreadCollectives::world_size() const { return rendezvous_->world_size; }

void ThreadCollectives::all_reduce_sum(torch::Tensor& tensor) {
  ++all_reduce_;
  const auto sum = meet(*rendezvous_, rank_, {"all_reduce_sum", tensor, 0});
  torch::NoGradGuard no_grad;
  tensor.copy_(sum);
}

std::unique_ptr<core::distributed::PendingCollective> ThreadCollectives::start_all_reduce_sum(torch::Tensor& tensor) {
  ++start_all_reduce_;
  const auto sum = meet(*rendezvous_, rank_, {"all_reduce_sum", tensor, 0});
  torch::NoGradGuard no_grad;
  tensor.copy_(sum);
  return std::make_unique<Done>();
}

void ThreadCollectives::broadcast(torch::Tensor& tensor, int root) {
  ++broadcast_;
  const auto value = meet(*rendezvous_, rank_, {"broadcast", tensor, root});
  torch::NoGradGuard no_grad;
  tensor.copy_(value);
}

void ThreadCollectives::barrier() {
  ++barrier_;
  meet(*rendezvous_, rank_, {"barrier", torch::Tensor(), 0});
}

CollectiveCalls ThreadCollectives::calls() const {
  return {all_reduce_.load(), start_all_reduce_.load(), broadcast_.load(), barrier_.load()};
}

ThreadWorld::ThreadWorld(int world_size, std::chrono::milliseconds timeout)
    : rendezvous_(std::make_shared<Rendezvous>(world_size, timeout)) {
  if (world_size < 1) throw std::invalid_argument("ThreadWorld needs at least one rank");
  for (int r = 0; r < world_size; ++r) ranks_.push_back(std::make_shared<ThreadCollectives>(rendezvous_, r));
}

void ThreadWorld::run(const std::function<void(int rank, ThreadCollectives& collectives)>& body) {
  std::mutex failure_mutex;
  std::exception_ptr first_failure;
  {
    std::lock_guard<std::mutex> lock(rendezvous_->mutex);
    rendezvous_->returned = 0;
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < world_size(); ++r) {
    threads.emplace_back([&, r] {
      try {
        body(r, *ranks_[static_cast<std::size_t>(r)]);
        rendezvous_->leave(r);
      } catch (const std::exception& error) {
        {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!first_failure) first_failure = std::current_exception();
        }
        rendezvous_->abort("rank " + std::to_string(r) + " failed: " + error.what());
      } catch (...) {
        {
          std::lock_guard<std::mutex> lock(failure_mutex);
          if (!first_failure) first_failure = std::current_exception();
        }
        rendezvous_->abort("rank " + std::to_string(r) + " failed");
      }
    });
  }
  for (auto& thread : threads) thread.join();
  if (first_failure) std::rethrow_exception(first_failure);
}

}  // namespace libreyolo::test
