#pragma once
// The task-aligned assigner's stages after the metric (task_aligned_assigner.hpp, steps 2-5): each
// gt's top-k candidates, orphans, conflicts, the normalised target scores. Composed (PyTorch ops)
// unless the fused_kernels policy allows the SDK's CUDA kernels `task_aligned_selection`
// (docs/fused-kernels.md), which keep PyTorch's top-k and give the composed outputs' bits.

#include <torch/types.h>

#include <cstdint>
#include <string>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/losses/task_aligned_assigner.hpp"
#include "libreyolo/sdk/losses/task_aligned_metric.hpp"

namespace libreyolo::sdk::losses {

// aligned: task_aligned_metric's outputs [B, M, A]; labels [B, M] int64 in [0, classes);
// gt_boxes [B, M, 4] float32.
LIBREYOLO_SDK_API Assignment task_aligned_selection(const AlignmentMetric& aligned, const torch::Tensor& labels,
                                                    const torch::Tensor& gt_boxes, int64_t classes,
                                                    const TaskAlignedAssignerOptions& options);

// The composed ops alone, whatever the policy (the reference the kernels are tested against).
LIBREYOLO_SDK_API Assignment task_aligned_selection_composed(const AlignmentMetric& aligned,
                                                             const torch::Tensor& labels,
                                                             const torch::Tensor& gt_boxes, int64_t classes,
                                                             const TaskAlignedAssignerOptions& options);

// Why the fused kernels would not take these inputs, whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string task_aligned_selection_refusal(const AlignmentMetric& aligned,
                                                             const torch::Tensor& labels,
                                                             const torch::Tensor& gt_boxes, int64_t classes);

}  // namespace libreyolo::sdk::losses
