#pragma once
// An in-process stand-in for a process group, for unit tests of anything written against
// core::distributed::Collectives: N ranks are N threads of one process meeting in a shared
// rendezvous. Each collective returns when every rank has called it; all_reduce_sum adds the
// ranks' tensors in rank order (so results are deterministic), broadcast copies the root's.
// Ranks that call different collectives, or the same one on different shapes, get a
// core::Error naming both calls instead of a silent mix-up; a rank that fails or waits past
// the timeout aborts the world, so its peers throw instead of hanging.
//
//   ThreadWorld world(2);
//   world.run([&](int rank, ThreadCollectives& collectives) { ... collectives.all_reduce_sum(t); });
//   CHECK(world.rank(0)->calls().all_reduce == 1);

#include <torch/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "libreyolo/core/distributed/collectives.hpp"

namespace libreyolo::test {

struct Rendezvous;  // the state the ranks share (thread_collectives.cpp)

// How many collectives one rank has called, by kind.
struct CollectiveCalls {
  std::size_t all_reduce = 0;        // all_reduce_sum
  std::size_t start_all_reduce = 0;  // start_all_reduce_sum (done at once, not counted above)
  std::size_t broadcast = 0;
  std::size_t barrier = 0;
};

class ThreadCollectives final : public core::distributed::Collectives {
 public:
  ThreadCollectives(std::shared_ptr<Rendezvous> rendezvous, int rank);

  int rank() const override { return rank_; }
  int world_size() const override;
  void all_reduce_sum(torch::Tensor& tensor) override;
  // Synchronous: the sum is in place when it returns, and the handle's wait() does nothing.
  std::unique_ptr<core::distributed::PendingCollective> start_all_reduce_sum(torch::Tensor& tensor) override;
  void broadcast(torch::Tensor& tensor, int root) override;
  void barrier() override;

  CollectiveCalls calls() const;

 private:
  std::shared_ptr<Rendezvous> rendezvous_;
  int rank_;
  std::atomic<std::size_t> all_reduce_{0};
  std::atomic<std::size_t> start_all_reduce_{0};
  std::atomic<std::size_t> broadcast_{0};
  std::atomic<std::size_t> barrier_{0};
};

class ThreadWorld {
 public:
  // `timeout`: how long a rank waits in one collective for its peers before the world aborts.
  explicit ThreadWorld(int world_size, std::chrono::milliseconds timeout = std::chrono::seconds(60));

  int world_size() const { return static_cast<int>(ranks_.size()); }
  // The rank's endpoint: the same object every call, so its counts accumulate over runs.
  std::shared_ptr<ThreadCollectives> rank(int rank) const { return ranks_.at(static_cast<std::size_t>(rank)); }

  // Runs body(rank, collectives) on one thread per rank and joins them. If any rank throws, the
  // world is aborted (peers blocked in a collective throw too) and the first failure is
  // rethrown here; an aborted world stays aborted.
  void run(const std::function<void(int rank, ThreadCollectives& collectives)>& body);

 private:
  std::shared_ptr<Rendezvous> rendezvous_;
  std::vector<std::shared_ptr<ThreadCollectives>> ranks_;
};

}  // namespace libreyolo::test
