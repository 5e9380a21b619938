#pragma once
// Whether the SDK's hand-written fused CUDA kernels replace their composed PyTorch versions
// (deformable attention's sampling, detr/ms_deform_attn.hpp; BatchNorm + SiLU,
// batch_norm_silu.hpp; the 2x2 average pool, avg_pool_2x2.hpp; the same-size max pool,
// max_pool_same.hpp; the DETRs' Hungarian matching, detr/batched_matching.hpp; the task-aligned
// assigner's metric and selection, losses/task_aligned_metric.hpp and task_aligned_selection.hpp;
// SimOTA's centre prior, IoU and cost and its selection, losses/simota_cost.hpp and
// simota_selection.hpp).
// A process-wide policy that the host sets from the `fused_kernels` option before it builds a
// model; families never choose it.
// A kernel runs by default (`measured`) only once it is measured faster in the training step and
// equal within tolerance on the GPU (docs/fused-kernels.md); `when_built` runs every one.

#include <string>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

enum class FusedKernels {
  off,         // always the composed PyTorch ops
  when_built,  // the fused kernel where this build has it and the inputs suit it (CUDA, shapes)
  measured,    // as when_built, for the kernels of measured_faster_kernels() only
};

// `only`: kernels of fused_kernel_names(), one name or several joined by '+' ("simota_cost+
// simota_selection"). With when_built, those alone ("" = every one), so that each can be measured
// alone; with measured, those in addition to the measured ones (to measure a candidate for the
// default against the default); ignored with off.
LIBREYOLO_SDK_API void set_fused_kernels(FusedKernels policy, const std::string& only = "");
LIBREYOLO_SDK_API FusedKernels fused_kernels();
// Whether the policy lets the kernel `name` run (its own refusals still apply).
LIBREYOLO_SDK_API bool fused_kernel_allowed(const char* name);

// The kernels' names, as the host's fused_kernels option takes them, and those of the measured
// default. What each name does and the measurements behind the default are beside the lists in
// fused_kernels.cpp, kept out of this header so that changing them rebuilds one file.
LIBREYOLO_SDK_API const std::vector<std::string>& fused_kernel_names();
LIBREYOLO_SDK_API const std::vector<std::string>& measured_faster_kernels();
// True when this SDK was compiled with its CUDA kernels (a CUDA LibTorch and nvcc).
LIBREYOLO_SDK_API bool fused_kernels_built();

}  // namespace libreyolo::sdk
