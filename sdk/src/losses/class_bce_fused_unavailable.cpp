// A build without CUDA kernels (the CPU build): the fused classification loss is never taken.
#include <stdexcept>

#include "class_bce_fused.hpp"

namespace libreyolo::sdk::losses {

std::string fused_class_bce_unavailable() { return "this build has no fused CUDA kernels"; }

torch::Tensor fused_class_bce_sum(const ClassBceInputs&) {
  throw std::logic_error("fused_class_bce_sum: this build has no fused CUDA kernels (ask class_bce_refusal first)");
}

}  // namespace libreyolo::sdk::losses
