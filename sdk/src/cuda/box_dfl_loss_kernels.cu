// YOLOv9's box losses (CIoU and DFL) over every anchor, forward and backward, one thread per
// anchor (box_dfl_loss_device.cuh holds the per-anchor code and says how it follows the composed
// ops). The composed ops take about 60 launches forward and as many backward over [B, A] and
// [B, A, 4, reg_max] tensors (YOLOv9-t at batch 16: 134,400 anchors): each a few microseconds,
// mostly launch and latency. Neighbouring threads are neighbouring anchors, which in the
// criterion's layout (the head's [B, C, A] outputs transposed) are neighbouring floats.
#include <cuda_runtime.h>

#include "box_dfl_loss_device.cuh"
#include "box_dfl_loss_kernels.hpp"
#include "grid_stride.cuh"
#include "launch_size.cuh"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) forward_kernel(BoxDflShape s, BoxDflBuffers in, float* __restrict__ terms) {
  for_each_item(s.batch * s.anchors, [&](int64_t i) { bdl::forward_anchor(s, in, terms, i); });
}

__global__ void __launch_bounds__(kThreads) backward_kernel(BoxDflShape s, BoxDflBuffers in,
                                                          const float* __restrict__ upstream, float* __restrict__ grad) {
  for_each_item(s.batch * s.anchors, [&](int64_t i) { bdl::backward_anchor(s, in, upstream, grad, i); });
}

bool launchable(const BoxDflShape& s) {
  return s.batch > 0 && s.anchors > 0 && s.bins >= 2 && s.bins <= kMostBoxBins;
}

}  // namespace

int box_dfl_forward(const BoxDflShape& s, const BoxDflBuffers& in, float* terms, void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t anchors = s.batch * s.anchors;
  forward_kernel<<<grid_stride_blocks(anchors, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(s, in,
                                                                                                           terms);
  return static_cast<int>(cudaGetLastError());
}

int box_dfl_backward(const BoxDflShape& s, const BoxDflBuffers& in, const float* upstream, float* grad, void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t anchors = s.batch * s.anchors;
  backward_kernel<<<grid_stride_blocks(anchors, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      s, in, upstream, grad);
  return static_cast<int>(cudaGetLastError());
}

const char* box_dfl_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
