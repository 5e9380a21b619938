// The NCCL backend: CUDA tensors, one GPU per rank. Compiled only when LibTorch has CUDA and
// NCCL's headers were found (USE_C10D_NCCL unlocks LibTorch's header).
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "c10d_collectives.hpp"

namespace libreyolo::core::distributed {

bool nccl_available() { return true; }

std::shared_ptr<Collectives> make_nccl_collectives(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                   int world_size, std::chrono::milliseconds timeout,
                                                   torch::Device device) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  try {
    auto group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world_size, options);
    return std::make_shared<C10dCollectives<c10d::ProcessGroupNCCL>>(store, group, device);
  } catch (const std::exception& e) {
    throw collective_failure("NCCL setup", e);
  }
}

}  // namespace libreyolo::core::distributed
