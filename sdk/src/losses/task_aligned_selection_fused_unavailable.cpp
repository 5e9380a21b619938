// A build without CUDA kernels (the CPU build): the fused task-aligned selection is never taken.
#include <stdexcept>

#include "task_aligned_selection_fused.hpp"

namespace libreyolo::sdk::losses {

std::string fused_task_aligned_selection_unavailable() { return "this build has no fused CUDA kernels"; }

Assignment fused_task_aligned_selection(const AlignmentMetric&, const torch::Tensor&, const torch::Tensor&, int64_t,
                                        const TaskAlignedAssignerOptions&) {
  throw std::logic_error(
      "fused_task_aligned_selection: this build has no fused CUDA kernels (ask task_aligned_selection_refusal first)");
}

}  // namespace libreyolo::sdk::losses
