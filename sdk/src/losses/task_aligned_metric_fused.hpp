#pragma once
// The SDK-internal seam between task_aligned_metric (task_aligned_metric.cpp) and its CUDA
// kernel: task_aligned_metric_fused.cpp in a CUDA build, task_aligned_metric_fused_unavailable.cpp
// otherwise.

#include <string>

#include "libreyolo/sdk/losses/task_aligned_metric.hpp"

namespace libreyolo::sdk::losses {

// Why this build cannot run the kernel at all ("" when it can).
std::string fused_task_aligned_metric_unavailable();

// task_aligned_metric_composed's outputs from one kernel; the caller checked the inputs
// (task_aligned_metric_refusal).
AlignmentMetric fused_task_aligned_metric(const AlignmentInputs& in, const TaskAlignedAssignerOptions& options);

}  // namespace libreyolo::sdk::losses
