// The task-aligned assigner's candidates, IoU and alignment metric in one pass over [B, M, A].
// Composed, this stage is about 45 elementwise launches over [B, M, A] (and [B, M, A, 2]) float
// tensors, tens of MB each at YOLOv9's 8,400 anchors and 64 padded rows, and it ran in every
// training step's graph. Here a block takes a span of anchors of one image and up to kRows of its
// gt rows: each gt row's terms (its box's sides, area and CIoU angle) are worked out once into
// shared memory, each thread's prediction terms once for all those rows, and the thread then
// writes three floats per row (the arithmetic and its bit-equality rules:
// task_aligned_metric_device.cuh). One thread per (b, m, a), as the first version had, redid the
// prediction's and the gt's arctangents for every pair and took 195 us of an H200 step.
#include <cuda_runtime.h>

#include <cstdint>

#include "launch_size.cuh"
#include "task_aligned_metric_device.cuh"
#include "task_aligned_metric_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;
constexpr int kRows = 8;  // gt rows a block pairs with its anchors
constexpr int64_t kMaxGridY = 65535;

__global__ void __launch_bounds__(kThreads)
    metric_kernel(AlignedMetricShape s, AlignedMetricInputs in, AlignedMetricOutputs out) {
  __shared__ tam::RowTerms rows[kRows];
  const int64_t row_groups = (s.rows + kRows - 1) / kRows;
  for (int64_t group = blockIdx.y; group < s.batch * row_groups; group += gridDim.y) {
    const int64_t b = group / row_groups, m = (group % row_groups) * kRows, first = b * s.rows + m;
    const int count = static_cast<int>(s.rows - m < kRows ? s.rows - m : kRows);
    __syncthreads();  // the previous group's rows are no longer read
    if (threadIdx.x < count) rows[threadIdx.x] = tam::row_terms(s, in, first + threadIdx.x);
    __syncthreads();
    for (int64_t a = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; a < s.anchors; a += int64_t(gridDim.x) * blockDim.x) {
      const auto anchor = tam::anchor_terms(s, in, b, a);
      for (int j = 0; j < count; ++j) tam::metric_of(s, in, out, rows[j], first + j, anchor, b, a);
    }
  }
}

}  // namespace

int task_aligned_metric(const AlignedMetricShape& shape, const AlignedMetricInputs& in, const AlignedMetricOutputs& out,
                        void* stream) {
  if (shape.batch * shape.rows * shape.anchors == 0) return 0;
  const int64_t groups = shape.batch * ceil_div(shape.rows, kRows);
  const dim3 grid(grid_stride_blocks(shape.anchors, kThreads), static_cast<unsigned>(groups < kMaxGridY ? groups : kMaxGridY));
  metric_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(shape, in, out);
  return static_cast<int>(cudaGetLastError());
}

const char* task_aligned_metric_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
