#pragma once
// Collectives over one c10d backend (ProcessGroupGloo or ProcessGroupNCCL). A template because
// LibTorch 1.13 and 2.x name the backend's base class and its Work type differently while the
// calls are the same. Private to core/src/distributed/.

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <cctype>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/distributed/collectives.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::distributed {

// Whether a backend's error says the collective waited past ddp_timeout (Gloo: "Timed out
// waiting ...ms for recv"; NCCL's watchdog: "... ran for ... milliseconds before timing out").
inline bool says_timeout(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text.find("timed out") != std::string::npos || text.find("timing out") != std::string::npos ||
         text.find("timeout") != std::string::npos;
}

// A failed collective: a peer died, the network broke, or the timeout passed.
inline Error collective_failure(const std::string& operation, const std::exception& e) {
  std::string detail = e.what();
  detail = detail.substr(0, detail.find('\n'));
  if (says_timeout(detail))
    return Error("a distributed " + operation + " failed: " + detail,
                 "another rank did not reach this collective within ddp_timeout: it is stuck (stopped, deadlocked, "
                 "waiting on a full disk) or much slower than this one",
                 "read the other ranks' output for where they stopped (spawned workers log to <run>/ddp/rank<N>.log); "
                 "if a rank is legitimately slow between collectives, raise ddp_timeout (seconds)");
  return Error("a distributed " + operation + " failed: " + detail,
               "another rank stopped (crashed, was killed or ran out of memory) or the connection between ranks broke",
               "read the other ranks' output for the first error (spawned workers log to <run>/ddp/rank<N>.log)");
}

template <class Backend>
class C10dCollectives final : public Collectives {
  using WorkPtr = decltype(std::declval<Backend&>().barrier());

  class Pending final : public PendingCollective {
   public:
    Pending(WorkPtr work, std::string operation) : work_(std::move(work)), operation_(std::move(operation)) {}
    void wait() override {
      try {
        work_->wait();
      } catch (const std::exception& e) {
        throw collective_failure(operation_, e);
      }
    }

   private:
    WorkPtr work_;
    std::string operation_;
  };

 public:
  C10dCollectives(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<Backend> backend, torch::Device device)
      : store_(std::move(store)), backend_(std::move(backend)), device_(device) {}

  int rank() const override { return backend_->getRank(); }
  int world_size() const override { return backend_->getSize(); }
  torch::Device device() const override { return device_; }

  void all_reduce_sum(torch::Tensor& tensor) override { start_all_reduce_sum(tensor)->wait(); }

  std::unique_ptr<PendingCollective> start_all_reduce_sum(torch::Tensor& tensor) override {
    std::vector<torch::Tensor> tensors{tensor};
    return start("all-reduce", [&] { return backend_->allreduce(tensors); });
  }

  void broadcast(torch::Tensor& tensor, int root) override {
    std::vector<torch::Tensor> tensors{tensor};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    start("broadcast", [&] { return backend_->broadcast(tensors, options); })->wait();
  }

  void barrier() override {
    start("barrier", [&] { return backend_->barrier(); })->wait();
  }

 private:
  template <class Launch>
  std::unique_ptr<PendingCollective> start(const std::string& operation, Launch launch) {
    try {
      return std::make_unique<Pending>(launch(), operation);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw collective_failure(operation, e);
    }
  }

  c10::intrusive_ptr<c10d::Store> store_;  // the backend keeps using it (e.g. NCCL's lazy communicators)
  c10::intrusive_ptr<Backend> backend_;
  torch::Device device_;
};

// Whether this build has the backend (false in the *_unavailable.cpp twins).
bool gloo_available();
bool nccl_available();

// Each backend's file (process_group_gloo.cpp, process_group_nccl.cpp) defines its maker, or
// its *_unavailable.cpp twin returns nullptr when this build lacks the backend.
std::shared_ptr<Collectives> make_gloo_collectives(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                   int world_size, std::chrono::milliseconds timeout,
                                                   torch::Device device);
std::shared_ptr<Collectives> make_nccl_collectives(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                   int world_size, std::chrono::milliseconds timeout,
                                                   torch::Device device);

}  // namespace libreyolo::core::distributed
