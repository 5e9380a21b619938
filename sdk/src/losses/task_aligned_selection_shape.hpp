#pragma once
// The fused task-aligned selection's launch description, shared by the CUDA wrapper
// (task_aligned_selection_fused.cpp) and the unit test that runs the kernels' code on the CPU;
// compiles without CUDA.

#include <algorithm>

#include "../cuda/task_aligned_selection_kernels.hpp"
#include "libreyolo/sdk/losses/task_aligned_selection.hpp"

namespace libreyolo::sdk::losses {

inline fused::SelectionShape selection_shape(const torch::Tensor& metric, int64_t classes,
                                             const TaskAlignedAssignerOptions& options) {
  fused::SelectionShape s;
  s.batch = metric.size(0);
  s.rows = metric.size(1);
  s.anchors = metric.size(2);
  s.classes = classes;
  s.topk = std::min(options.topk, s.anchors);
  s.ensure_one_anchor = options.ensure_one_anchor;
  s.eps = static_cast<float>(options.eps);
  return s;
}

}  // namespace libreyolo::sdk::losses
