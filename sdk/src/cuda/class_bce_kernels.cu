// The classification loss (binary cross-entropy with logits against a one-class target, summed),
// forward and backward, one thread per anchor looping over the classes (class_bce_device.cuh holds
// the per-anchor code). Composed, it is a one-hot target built over [B, A, C] (YOLOX), the BCE's
// log-sigmoid, products and differences, a mask, a sum, and as many kernels backward, each a pass
// over [B, A, C] float32 (43 MB at batch 16, 8,400 anchors, 80 classes). Here the forward reads the
// logits once and the backward reads them once and writes the gradient once. In the criteria's
// layout (the head's [B, C, A] outputs transposed) neighbouring anchors are neighbouring floats, so
// neighbouring threads read and write neighbouring memory.
#include <cuda_runtime.h>

#include "class_bce_device.cuh"
#include "class_bce_kernels.hpp"
#include "grid_stride.cuh"
#include "launch_size.cuh"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) forward_kernel(ClassBceShape s, ClassBceBuffers in, float* __restrict__ row_sums) {
  for_each_item(s.batch * s.anchors, [&](int64_t i) { cbce::forward_row(s, in, row_sums, i); });
}

__global__ void __launch_bounds__(kThreads) backward_kernel(ClassBceShape s, ClassBceBuffers in,
                                                          const float* __restrict__ upstream, float* __restrict__ grad) {
  for_each_item(s.batch * s.anchors, [&](int64_t i) { cbce::backward_row(s, in, upstream, grad, i); });
}

bool launchable(const ClassBceShape& s) { return s.batch > 0 && s.anchors > 0 && s.classes > 0; }

}  // namespace

int class_bce_forward(const ClassBceShape& s, const ClassBceBuffers& in, float* row_sums, void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t rows = s.batch * s.anchors;
  forward_kernel<<<grid_stride_blocks(rows, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(s, in,
                                                                                                        row_sums);
  return static_cast<int>(cudaGetLastError());
}

int class_bce_backward(const ClassBceShape& s, const ClassBceBuffers& in, const float* upstream, float* grad,
                       void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const int64_t rows = s.batch * s.anchors;
  backward_kernel<<<grid_stride_blocks(rows, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      s, in, upstream, grad);
  return static_cast<int>(cudaGetLastError());
}

const char* class_bce_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
