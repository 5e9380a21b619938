// The task-aligned assigner's candidates, IoU and alignment metric in one pass over [B, M, A].
// Composed, this stage is about 45 elementwise launches over [B, M, A] (and [B, M, A, 2]) float
// tensors, tens of MB each at YOLOv9's 8,400 anchors and 64 padded rows, and it ran in every
// training step's graph. Here each thread owns one (b, m, a) and writes three floats (the code
// and its bit-equality rules: task_aligned_metric_device.cuh).
#include <cuda_runtime.h>

#include <cstdint>

#include "launch_size.cuh"
#include "task_aligned_metric_device.cuh"
#include "task_aligned_metric_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    metric_kernel(AlignedMetricShape s, AlignedMetricInputs in, AlignedMetricOutputs out) {
  const int64_t total = s.batch * s.rows * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    tam::metric_of_pair(s, in, out, i);
}

}  // namespace

int task_aligned_metric(const AlignedMetricShape& shape, const AlignedMetricInputs& in, const AlignedMetricOutputs& out,
                        void* stream) {
  const int64_t total = shape.batch * shape.rows * shape.anchors;
  if (total == 0) return 0;
  metric_kernel<<<grid_stride_blocks(total, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(shape, in, out);
  return static_cast<int>(cudaGetLastError());
}

const char* task_aligned_metric_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
