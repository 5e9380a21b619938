#include "libreyolo/sdk/fused_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <vector>

namespace libreyolo::sdk {
namespace {
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
// one convolution and one BatchNorm (stacked_convolutions.hpp); dense_slices: a channel chunk
// read by convolutions copied dense once before its readers (dense_slices.hpp); half_upsample:
// the necks' nearest upsample in the map's own type under autocast (upsample.hpp);
// native_batch_norm: sdk::BatchNorm2d's training forward on PyTorch's own kernels, not cuDNN's
// (batch_norm.hpp); alternate_step_graphs is the host's: each whole-step graph recorded twice
// and the copies replayed in turn (core/src/capture/cuda_step_graph.cpp); batch_norm_silu_cluster:
// BatchNorm + SiLU in one launch a direction for small channels-last activations, a thread-block
// cluster per channel tile (batch_norm_silu.hpp; docs/fused-kernels.md); batch_norm_silu_large:
// the three-launch BatchNorm + SiLU for activations of at least 2^20 positions only, cuDNN's below;
// aligned_channels: a concatenation feeding a convolution widened to a multiple of eight channels
// with zeros, so that cuDNN neither pads it nor takes its unaligned kernels (aligned_channels.hpp);
// small_convolutions: 3x3 convolutions of 16 channels on the SDK's kernels, small_convolutions_wide
// of 16, 24 and 32 (small_convolutions.hpp); image_convolutions: a network's first convolution, 3x3
// over the image's three channels, on the SDK's kernels (image_convolutions.hpp);
// cudnn_batch_norm_silu: BatchNorm + SiLU forward as one cuDNN kernel (its SWISH activation), the
// backward our SiLU-derivative pass and cuDNN's BatchNorm backward (batch_norm_silu.hpp);
// prediction_rows: a head's 1x1 prediction convolutions' bias, concatenation and float32 rows in
// one launch, their backward's gradient slices and bias sums in two (prediction_rows.hpp);
// optimizer_step is the host's: the end of the float16 step in three kernels
// (core/amp/fused_optimizer_step.hpp); batch_norm_memsets: cuDNN's BatchNorm with each layer's
// own workspaces, and the recorded step's memsets into them waiting for nothing,
// batch_norm_memsets_shifted: for the node before the previous one's call,
// batch_norm_memsets_merged: replaced by one kernel node at the graph's start,
// batch_norm_memsets_leading: that node ahead of the whole graph instead of an edge to each call,
// memset_kernel_nodes: with any of those, every memset node left in a recorded graph a kernel node,
// copy_kernel_nodes: every device-to-device memcpy node one too
// (batch_norm_workspaces.hpp, core/src/capture/workspace_memsets.cpp);
// batch_norm_memsets_recording_only: beside those, the own workspaces only while a graph is being
// recorded, PyTorch's own call in eager steps (batch_norm.cpp); eager_optimizer_step: beside
// optimizer_step, eager float16 steps end in its three kernels too (core/src/trainer/whole_step.cpp).
const char* const kFusedKernelNames[] = {
    "deform_sampling",  "batch_norm_silu",   "avg_pool_2x2",   "max_pool_same",  "linear_assignment",
    "weight_casts",     "task_aligned_metric", "task_aligned_selection", "simota_cost", "simota_selection",
    "weight_grad_stream", "branch_streams",  "block_tails",    "box_dfl_loss",   "class_bce",
    "level_streams",    "stacked_convolutions", "dense_slices", "half_upsample", "native_batch_norm",
    "alternate_step_graphs", "batch_norm_silu_cluster", "batch_norm_silu_large", "aligned_channels",
    "small_convolutions", "small_convolutions_wide", "image_convolutions", "cudnn_batch_norm_silu", "prediction_rows",
    "optimizer_step", "batch_norm_memsets", "batch_norm_memsets_shifted", "batch_norm_memsets_merged",
    "batch_norm_memsets_leading", "batch_norm_memsets_recording_only", "eager_optimizer_step", "memset_kernel_nodes",
    "copy_kernel_nodes"};
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
// 992 -> 1,006 on an H100, 2026-12-05), and the dense channel chunks (the same bits; YOLOv9-t's
// step 21.97 -> 21.76 ms fastest, 22 kernels and 37 MB fewer, end to end 751 and 744 -> 759
// images/s on an H100, 2026-12-05), and, within rounding with learning checks passed, YOLOv9's box
// losses and the YOLOs' classification loss in one launch each and the necks' upsample in float16
// (YOLOv9-t's step 21.12 -> 19.96 ms fastest, end to end 770 -> 814 images/s; YOLOX-s with the
// upsample and the classification loss 16.60 -> 15.33 ms, 1,019 -> 1,086 images/s; an H100,
// 2026-12-05; docs/fused-kernels.md). Not BatchNorm + SiLU everywhere (the step slower), nor for
// the large activations only (batch_norm_silu_large: 1.011x in YOLOv9-t's step, in the default for
// one session, taken out on 2026-12-06 when YOLOv9-t's memorisation check came out lower with it,
// 0.760-0.853 mAP50 in four runs against 0.846-0.872 in three without). And YOLOv9's 16-channel
// 3x3 convolutions on the SDK's kernels (small_convolutions, within rounding: YOLOv9-t's step
// 1.013x and 1.023x, end to end +2.3% and +2.0% on an H100 in two sessions, memorisation over four
// seeds -0.6% of the default's mean mAP50; 2026-12-06). Not at 24 and 32 channels (slower). And
// a network's first convolution read straight from the image (image_convolutions, within
// rounding: the step 1.004x YOLOv9-t and 1.005x YOLOX-s on an H200, end to end +0.8% and +1.0% on
// an H100, memorisation over four seeds +3.3% of the default's mean mAP50; 2026-12-07). Not
// cuDNN's BatchNorm with SiLU in its forward (cudnn_batch_norm_silu: 0.98x in both steps). And
// the end of the float16 step as three kernels of the host's (optimizer_step: PyTorch's SGD
// rounding measured per run, the same bits; the step 1.034x YOLOv9-t and 1.026x YOLOX-s, end to
// end +3.9% and +2.5% on an H100, 2026-12-07). Not prediction_rows (1.011x; memorisation lower in
// three of four seeds). And cuDNN's BatchNorm with each layer's own workspaces, the recorded step's
// memsets into them cleared by one kernel node at the graph's start (batch_norm_memsets_merged: the
// same forward bits, gradients as far from the default's as two default passes; the step 1.098x
// YOLOv9-t and 1.041x YOLOX-s, end to end 830 and 839 -> 924 and 925 images/s YOLOv9-t, 1,072 ->
// 1,120 YOLOX-s on an H100, 2026-12-07); not the other two placements (1.052x and 1.035x). And
// the same three kernels ending eager float16 steps (eager_optimizer_step: the same bits in the
// unit cases; YOLOv9-t's eager step 1.58x fastest, 1.23x back to back on an H100, 2026-12-07).
const char* const kMeasuredFasterKernels[] = {
    "avg_pool_2x2",  "max_pool_same", "linear_assignment", "deform_sampling",  "weight_casts",
    "task_aligned_metric", "task_aligned_selection", "simota_cost", "simota_selection", "weight_grad_stream",
    "block_tails",   "dense_slices",  "box_dfl_loss",    "class_bce",        "half_upsample",
    "small_convolutions", "image_convolutions", "optimizer_step", "batch_norm_memsets_merged", "eager_optimizer_step"};

std::atomic<FusedKernels> policy{FusedKernels::off};
std::mutex only_mutex;
std::vector<std::string> only_kernels;  // guarded by only_mutex; set before a model is built

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> parts;
  for (std::string::size_type start = 0; !names.empty();) {
    const auto end = names.find('+', start);
    parts.push_back(names.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

// Whether `name` is one of the kernels set_fused_kernels named (the caller holds only_mutex).
bool named(const char* name) {
  return std::find(only_kernels.begin(), only_kernels.end(), name) != only_kernels.end();
}
}  // namespace

void set_fused_kernels(FusedKernels value, const std::string& only) {
  {
    const std::lock_guard<std::mutex> lock(only_mutex);
    only_kernels = split_names(only);
  }
  policy.store(value);
}

FusedKernels fused_kernels() { return policy.load(); }

bool fused_kernel_allowed(const char* name) {
  const auto now = policy.load();
  if (now == FusedKernels::off) return false;
  if (now == FusedKernels::measured)
    for (const auto& faster : measured_faster_kernels())
      if (faster == name) return true;
  const std::lock_guard<std::mutex> lock(only_mutex);
  if (now == FusedKernels::measured) return named(name);
  return only_kernels.empty() || named(name);
}

const std::vector<std::string>& fused_kernel_names() {
  static const std::vector<std::string> names(std::begin(kFusedKernelNames), std::end(kFusedKernelNames));
  return names;
}

const std::vector<std::string>& measured_faster_kernels() {
  static const std::vector<std::string> names(std::begin(kMeasuredFasterKernels), std::end(kMeasuredFasterKernels));
  return names;
}

bool fused_kernels_built() {
#ifdef LIBREYOLO_SDK_FUSED_KERNELS
  return true;
#else
  return false;
#endif
}

}  // namespace libreyolo::sdk
