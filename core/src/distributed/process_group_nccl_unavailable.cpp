// A build without CUDA or without NCCL's headers: GPUs synchronise through Gloo, if at all.
#include "c10d_collectives.hpp"

namespace libreyolo::core::distributed {

bool nccl_available() { return false; }

std::shared_ptr<Collectives> make_nccl_collectives(const c10::intrusive_ptr<c10d::Store>&, int, int,
                                                   std::chrono::milliseconds, torch::Device) {
  return nullptr;
}

}  // namespace libreyolo::core::distributed
