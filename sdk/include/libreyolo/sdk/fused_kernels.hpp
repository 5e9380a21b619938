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

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

enum class FusedKernels {
  off,         // always the composed PyTorch ops
  when_built,  // the fused kernel where this build has it and the inputs suit it (CUDA, shapes)
  measured,    // as when_built, for the kernels in kMeasuredFasterKernels only
};

// `only`: kernels of kFusedKernelNames, one name or several joined by '+' ("simota_cost+
// simota_selection"). With when_built, those alone ("" = every one), so that each can be measured
// alone; with measured, those in addition to the measured ones (to measure a candidate for the
// default against the default); ignored with off.
LIBREYOLO_SDK_API void set_fused_kernels(FusedKernels policy, const std::string& only = "");
LIBREYOLO_SDK_API FusedKernels fused_kernels();
// Whether the policy lets the kernel `name` run (its own refusals still apply).
LIBREYOLO_SDK_API bool fused_kernel_allowed(const char* name);

// The kernels' names, as the host's fused_kernels option takes them.
// weight_casts is the host's, not a kernel of the SDK's: autocast's per-layer casts of the
// convolution weights as one multi-tensor launch per step (core/amp/weight_copies.hpp);
// weight_grad_stream is the host's too: with those copies, the convolutions' weight gradients on
// a second CUDA stream beside the backward (core/amp/weight_gradient_stream.hpp);
// branch_streams: a network's independent branches side by side on CUDA streams (side_by_side.hpp),
// level_streams: only those of the detector's level structure (BranchScope::level);
// block_tails: the blocks' add + SiLU tails in one launch each (block_tails.hpp); box_dfl_loss:
// YOLOv9's CIoU and DFL losses in one launch each way (losses/box_dfl_loss.hpp); class_bce: the
// YOLOs' classification loss in one launch each way (losses/class_bce.hpp); stacked_convolutions:
// convolutions of one input that are only summed after their BatchNorms (YOLOv9's RepConvN) as
// one convolution and one BatchNorm (stacked_convolutions.hpp).
inline constexpr const char* kFusedKernelNames[] = {"deform_sampling",   "batch_norm_silu", "avg_pool_2x2",
                                                    "max_pool_same",     "linear_assignment", "weight_casts",
                                                    "task_aligned_metric", "task_aligned_selection",
                                                    "simota_cost",     "simota_selection", "weight_grad_stream",
                                                    "branch_streams",  "block_tails",      "box_dfl_loss",
                                                    "class_bce",       "level_streams",    "stacked_convolutions"};
// Those measured faster on an H200 and equal within tolerance (docs/fused-kernels.md): the 2x2
// average pool (YOLOv9-t's step 26.4 -> 25.4 ms), the same-size max pool (YOLOX-s's step 17.58 ->
// 16.52 ms), the GPU Hungarian matching (the host solver's assignment bit for bit; RT-DETR-r18's
// step 40.1 -> 35.5 ms, D-FINE-n's 49.0 -> 36.7 ms) and, once that matching left the step
// GPU-bound, the deformable sampling (RT-DETR-r18 end to end 474 -> 562 images/s), and the
// weight casts as one launch (the same bits; YOLOv9-t's step 24.37 -> 23.48 ms, YOLOX-s's 16.42
// -> 16.14 ms), and the task-aligned assigner's metric in one kernel (the same bits; YOLOv9-t's
// GPU time 24.06 -> 22.97 ms a step), and the assigner's selection (the same bits; YOLOv9-t's step
// 22.45 -> 21.97 ms fastest), and YOLOX's SimOTA cost and selection (the same bits; YOLOX-s's
// step 15.94 -> 15.18 ms fastest), and the weight gradients on a second stream with the blocks'
// add + SiLU tails in one launch (the same bits; YOLOv9-t end to end 706 -> 759 images/s, YOLOX-s
// 992 -> 1,006 on an H100, 2026-12-05). Not BatchNorm + SiLU (the step slower).
inline constexpr const char* kMeasuredFasterKernels[] = {"avg_pool_2x2",        "max_pool_same",
                                                         "linear_assignment",   "deform_sampling",
                                                         "weight_casts",        "task_aligned_metric",
                                                         "task_aligned_selection", "simota_cost",
                                                         "simota_selection",    "weight_grad_stream",
                                                         "block_tails"};
// True when this SDK was compiled with its CUDA kernels (a CUDA LibTorch and nvcc).
LIBREYOLO_SDK_API bool fused_kernels_built();

}  // namespace libreyolo::sdk
