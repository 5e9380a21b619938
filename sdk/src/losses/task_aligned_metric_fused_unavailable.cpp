// A build without CUDA kernels (the CPU build): the fused task-aligned metric is never taken.
#include <stdexcept>

#include "task_aligned_metric_fused.hpp"

namespace libreyolo::sdk::losses {

std::string fused_task_aligned_metric_unavailable() { return "this build has no fused CUDA kernels"; }

AlignmentMetric fused_task_aligned_metric(const AlignmentInputs&, const TaskAlignedAssignerOptions&) {
  throw std::logic_error(
      "fused_task_aligned_metric: this build has no fused CUDA kernels (ask task_aligned_metric_refusal first)");
}

}  // namespace libreyolo::sdk::losses
