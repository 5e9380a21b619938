// The NCCL backend: CUDA tensors, one GPU per rank. Compiled only when LibTorch has CUDA and
// NCCL's headers were found (USE_C10D_NCCL unlocks LibTorch's header).
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <exception>

#include "c10d_collectives.hpp"

namespace libreyolo::core::distributed {
namespace {

// LibTorch 2.x warns at exit about a ProcessGroupNCCL destroyed without shutdown() (its
// communicators may leak); releasing it through shutdown() ends it as destroy_process_group
// does in Python. Older LibTorch has no shutdown(): the overload below then does nothing.
template <class Group>
auto shut_down(Group& group, int) -> decltype(group.shutdown(), void()) {
  group.shutdown();
}
template <class Group>
void shut_down(Group&, long) {}

}  // namespace

bool nccl_available() { return true; }

std::shared_ptr<Collectives> make_nccl_collectives(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                   int world_size, std::chrono::milliseconds timeout,
                                                   torch::Device device) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  try {
    auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world_size, options);
    // The deleter keeps its own reference, so shut_down runs on a live group after the
    // collectives (and their work handles) are gone. Only on an orderly end: while an exception
    // unwinds (a failed collective, a dead peer, any error mid-step) the group's own destructor
    // aborts the communicators instead, which cannot wait on a peer that will never answer.
    return std::shared_ptr<Collectives>(new C10dCollectives<c10d::ProcessGroupNCCL>(store, group, device),
                                        [group](Collectives* collectives) mutable {
                                          delete collectives;
                                          if (std::uncaught_exceptions() > 0) return;
                                          try {
                                            shut_down(*group, 0);
                                          } catch (const std::exception&) {
                                            // at teardown a failing shutdown has nobody to tell
                                          }
                                        });
  } catch (const std::exception& e) {
    throw collective_failure("NCCL setup", e);
  }
}

}  // namespace libreyolo::core::distributed
