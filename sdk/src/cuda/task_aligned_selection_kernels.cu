// The task-aligned assigner's later stages (top-k positives, orphans, conflicts, normalised
// scores) in five launches over [B, M, A], where the composed ops take about 30 (docs/
// fused-kernels.md, "Task-aligned selection"). The per-item and per-row code, and its equality
// rules, are in task_aligned_selection_device.cuh (which unit tests also run on the CPU); this
// file adds the launches and the block reductions of the two per-row launches.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "launch_size.cuh"
#include "task_aligned_selection_device.cuh"
#include "task_aligned_selection_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ inline tas::Best shuffle_down(tas::Best v, int offset) {
  return {__shfl_down_sync(0xffffffffu, v.value, offset), __shfl_down_sync(0xffffffffu, v.index, offset)};
}
__device__ inline float shuffle_down(float v, int offset) { return __shfl_down_sync(0xffffffffu, v, offset); }
__device__ inline int shuffle_down(int v, int offset) { return __shfl_down_sync(0xffffffffu, v, offset); }

// The block's reduction of `value` by `op`; the result is valid in thread 0. `shared` holds a
// value per warp; call __syncthreads() before reusing it.
template <class T, class Op>
__device__ T block_reduce(T value, Op op, T* shared) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, shuffle_down(value, offset));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) shared[warp] = value;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kWarps; ++w) value = op(value, shared[w]);
  return value;
}

// 1. Per gt row (a block each): its top-k positives into the mask, and an orphan's best anchor.
__global__ void __launch_bounds__(kThreads) rows_kernel(SelectionShape s, SelectionInputs in, SelectionOutputs out) {
  __shared__ tas::Best best_shared[kWarps];
  __shared__ int nan_shared[kWarps];
  const int64_t row = blockIdx.x;
  const auto part = tas::scan_row(s, in, row, threadIdx.x, blockDim.x);
  const tas::Best best = block_reduce(part.best, tas::Better(), best_shared);
  const int nan = block_reduce(part.nan, tas::Or(), nan_shared);
  if (threadIdx.x == 0) tas::mark_orphan(s, in, out, row, {best, nan});
  for (int64_t j = threadIdx.x; j < s.topk; j += blockDim.x) tas::mark_top(s, in, out, row, j);
}

// 2. Per anchor: conflicts, the foreground flag and the row index.
__global__ void __launch_bounds__(kThreads) anchors_kernel(SelectionShape s, SelectionInputs in, SelectionOutputs out) {
  const int64_t total = s.batch * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    tas::resolve_anchor(s, in, out, i);
}

// 3. Per gt row (a block each): the maxima over anchors of metric * positive and iou * positive.
__global__ void __launch_bounds__(kThreads) maxima_kernel(SelectionShape s, SelectionInputs in, SelectionOutputs out) {
  __shared__ float shared[kWarps];
  const int64_t row = blockIdx.x;
  const auto part = tas::scan_maxima(s, in, out, row, threadIdx.x, blockDim.x);
  const float metric_max = block_reduce(part.metric, tas::NanMax(), shared);
  __syncthreads();
  const float iou_max = block_reduce(part.iou, tas::NanMax(), shared);
  if (threadIdx.x == 0) {
    out.metric_max[row] = metric_max;
    out.iou_max[row] = iou_max;
  }
}

// 4. Per anchor: the normalised score, the row's label and box.
__global__ void __launch_bounds__(kThreads) anchor_scores_kernel(SelectionShape s, SelectionInputs in,
                                                                   SelectionOutputs out) {
  const int64_t total = s.batch * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    tas::score_anchor(s, in, out, i);
}

// 5. The scores [B, A, C].
__global__ void __launch_bounds__(kThreads) class_scores_kernel(SelectionShape s, SelectionOutputs out) {
  const int64_t total = s.batch * s.anchors * s.classes;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    tas::score_class(s, out, i);
}

}  // namespace

int task_aligned_selection(const SelectionShape& s, const SelectionInputs& in, const SelectionOutputs& out,
                           void* stream_ptr) {
  if (s.batch * s.anchors == 0) return 0;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const unsigned per_anchor = grid_stride_blocks(s.batch * s.anchors, kThreads);
  const auto rows = static_cast<unsigned>(s.batch * s.rows);
  if (rows > 0) rows_kernel<<<rows, kThreads, 0, stream>>>(s, in, out);
  anchors_kernel<<<per_anchor, kThreads, 0, stream>>>(s, in, out);
  if (rows > 0) maxima_kernel<<<rows, kThreads, 0, stream>>>(s, in, out);
  anchor_scores_kernel<<<per_anchor, kThreads, 0, stream>>>(s, in, out);
  if (out.scores != nullptr)  // else the caller reads anchor_score alone
    class_scores_kernel<<<grid_stride_blocks(s.batch * s.anchors * s.classes, kThreads), kThreads, 0, stream>>>(s, out);
  return static_cast<int>(cudaGetLastError());
}

const char* task_aligned_selection_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
