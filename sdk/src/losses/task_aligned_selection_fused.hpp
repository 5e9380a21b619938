#pragma once
// The SDK-internal seam between task_aligned_selection (task_aligned_selection.cpp) and its CUDA
// kernels: task_aligned_selection_fused.cpp in a CUDA build, task_aligned_selection_fused_unavailable.cpp
// otherwise.

#include <string>

#include "libreyolo/sdk/losses/task_aligned_selection.hpp"

namespace libreyolo::sdk::losses {

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_task_aligned_selection_unavailable();

// task_aligned_selection_composed's outputs from PyTorch's top-k and five kernels; the caller
// checked the inputs (task_aligned_selection_refusal).
Assignment fused_task_aligned_selection(const AlignmentMetric& aligned, const torch::Tensor& labels,
                                        const torch::Tensor& gt_boxes, int64_t classes,
                                        const TaskAlignedAssignerOptions& options);

}  // namespace libreyolo::sdk::losses
