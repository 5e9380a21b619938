// The task-aligned assigner's later stages (top-k positives, orphans, conflicts, normalised
// scores) in five launches over [B, M, A], where the composed ops take about 30 (docs/
// fused-kernels.md, "Task-aligned selection"). Equality with the composed ops: explicit _rn
// arithmetic (no FMA contraction), PyTorch's rules for maxima (a NaN wins, equal values keep the
// lowest index) and NaN-propagating amax; the sum over rows has at most one nonzero term.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "launch_size.cuh"
#include "task_aligned_selection_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ inline float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline float add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline float div(float a, float b) { return __fdiv_rn(a, b); }
__device__ inline bool is_nan(float x) { return x != x; }

// (value, index) pairs ordered as PyTorch's max(dim) orders them among non-NaN values.
struct Best {
  float value;
  int64_t index;
};
struct Better {
  __device__ Best operator()(Best a, Best b) const {
    return (a.value > b.value || (a.value == b.value && a.index < b.index)) ? a : b;
  }
};
// amax's rule: a NaN wins.
struct NanMax {
  __device__ float operator()(float a, float b) const { return (is_nan(a) || a > b) ? a : b; }
};
struct Or {
  __device__ int operator()(int a, int b) const { return a | b; }
};

__device__ inline Best shuffle_down(Best v, int offset) {
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

// 1. Per gt row: its top-k positives (value > 0) into the mask; with ensure_one_anchor, a row
// with none takes its best anchor when that metric is > 0 (a NaN in the row: no best).
__global__ void __launch_bounds__(kThreads) rows_kernel(SelectionShape s, SelectionInputs in, SelectionOutputs out) {
  __shared__ Best best_shared[kWarps];
  __shared__ int nan_shared[kWarps];
  const int64_t row = blockIdx.x;
  const float* metric = in.metric + row * s.anchors;
  Best best{-INFINITY, s.anchors};
  int nan = 0;
  for (int64_t a = threadIdx.x; a < s.anchors; a += blockDim.x) {
    const float v = metric[a];
    if (is_nan(v))
      nan = 1;
    else
      best = Better()(best, Best{v, a});
  }
  best = block_reduce(best, Better(), best_shared);
  nan = block_reduce(nan, Or(), nan_shared);
  const float* values = in.top_values + row * s.topk;
  const int64_t* index = in.top_index + row * s.topk;
  uint8_t* positive = out.positive + row * s.anchors;
  if (threadIdx.x == 0) {
    int count = 0;
    for (int64_t j = 0; j < s.topk; ++j) count += values[j] > 0.f;
    if (s.ensure_one_anchor && count == 0 && !nan && best.value > 0.f) positive[best.index] = 1;
  }
  for (int64_t j = threadIdx.x; j < s.topk; j += blockDim.x)
    if (values[j] > 0.f) positive[index[j]] = 1;
}

// 2. Per anchor: an anchor claimed by several rows keeps the row of the highest IoU (argmax of
// iou * positive over rows, PyTorch's rule); the foreground flag and the row index.
__global__ void __launch_bounds__(kThreads) anchors_kernel(SelectionShape s, SelectionInputs in, SelectionOutputs out) {
  const int64_t total = s.batch * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / s.anchors, a = i % s.anchors;
    int64_t claims = 0, first = -1, best_row = 0;
    float best = 0.f;
    for (int64_t m = 0; m < s.rows; ++m) {
      const int64_t at = (b * s.rows + m) * s.anchors + a;
      const bool p = out.positive[at] != 0;
      claims += p;
      if (p && first < 0) first = m;
      const float v = mul(in.iou[at], p ? 1.f : 0.f);
      if (m == 0 || (is_nan(v) && !is_nan(best)) || (!is_nan(best) && v > best)) {
        best = v;
        best_row = m;
      }
    }
    if (claims > 1)
      for (int64_t m = 0; m < s.rows; ++m) out.positive[(b * s.rows + m) * s.anchors + a] = m == best_row;
    out.foreground[i] = claims > 0;
    out.gt_index[i] = claims > 1 ? best_row : (claims == 1 ? first : 0);
  }
}

// 3. Per gt row: the maxima over anchors of metric * positive and iou * positive (amax's rule).
__global__ void __launch_bounds__(kThreads) maxima_kernel(SelectionShape s, SelectionInputs in, SelectionOutputs out) {
  __shared__ float shared[kWarps];
  const int64_t row = blockIdx.x;
  float metric_max = -INFINITY, iou_max = -INFINITY;
  for (int64_t a = threadIdx.x; a < s.anchors; a += blockDim.x) {
    const float p = out.positive[row * s.anchors + a] ? 1.f : 0.f;
    metric_max = NanMax()(metric_max, mul(in.metric[row * s.anchors + a], p));
    iou_max = NanMax()(iou_max, mul(in.iou[row * s.anchors + a], p));
  }
  metric_max = block_reduce(metric_max, NanMax(), shared);
  __syncthreads();
  iou_max = block_reduce(iou_max, NanMax(), shared);
  if (threadIdx.x == 0) {
    out.metric_max[row] = metric_max;
    out.iou_max[row] = iou_max;
  }
}

// 4. Per anchor: its normalised score (summed over rows: one nonzero term at most) times the
// foreground flag, and its row's label and box.
__global__ void __launch_bounds__(kThreads) anchor_scores_kernel(SelectionShape s, SelectionInputs in,
                                                                   SelectionOutputs out) {
  const int64_t total = s.batch * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t b = i / s.anchors, a = i % s.anchors;
    float sum = 0.f;
    for (int64_t m = 0; m < s.rows; ++m) {
      const int64_t row = b * s.rows + m, at = row * s.anchors + a;
      const float p = out.positive[at] ? 1.f : 0.f;
      const float normalised = mul(div(mul(in.metric[at], p), add(out.metric_max[row], s.eps)), out.iou_max[row]);
      sum = add(sum, normalised);
    }
    out.anchor_score[i] = mul(sum, out.foreground[i] ? 1.f : 0.f);
    const int64_t row = b * s.rows + out.gt_index[i];
    out.assigned_labels[i] = in.labels[row];
    for (int c = 0; c < 4; ++c) out.assigned_boxes[i * 4 + c] = in.gt_boxes[row * 4 + c];
  }
}

// 5. The scores [B, A, C]: the one-hot of the anchor's label times its score.
__global__ void __launch_bounds__(kThreads) class_scores_kernel(SelectionShape s, SelectionOutputs out) {
  const int64_t total = s.batch * s.anchors * s.classes;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t anchor = i / s.classes, c = i % s.classes;
    out.scores[i] = mul(c == out.assigned_labels[anchor] ? 1.f : 0.f, out.anchor_score[anchor]);
  }
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
  class_scores_kernel<<<grid_stride_blocks(s.batch * s.anchors * s.classes, kThreads), kThreads, 0, stream>>>(s, out);
  return static_cast<int>(cudaGetLastError());
}

const char* task_aligned_selection_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
