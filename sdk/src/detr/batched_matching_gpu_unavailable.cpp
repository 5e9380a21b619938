// A build without CUDA kernels (the CPU build): matching always runs on host threads.
#include <stdexcept>

#include "batched_matching_gpu.hpp"

namespace libreyolo::sdk::detr {

std::string gpu_matching_refusal(const torch::Tensor&) { return "this build has no CUDA kernels"; }

torch::Tensor match_batched_gpu(const torch::Tensor&, const std::vector<int64_t>&) {
  throw std::logic_error("match_batched_gpu: this build has no CUDA kernels (ask gpu_matching_refusal first)");
}

}  // namespace libreyolo::sdk::detr
