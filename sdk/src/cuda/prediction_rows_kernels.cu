// prediction_rows_kernels.hpp's kernels. A block takes one tile of kRows anchors of one level and
// one image, one thread a column of the rows: the rows are read and written a whole row at a time
// (consecutive threads, consecutive floats) and a channels-last output's channels are consecutive
// too. The backward's bias sums are each thread's own column over its tile (a fixed order), then
// one warp a column adds the tiles' sums in a fixed order: the same bits every run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "launch_size.cuh"
#include "prediction_rows_device.cuh"
#include "prediction_rows_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

using namespace prediction_rows;
constexpr int kWarp = 32;

// The shape is a __grid_constant__ parameter: ColumnTask points into it, and a pointer into a
// plain kernel parameter would make every thread copy the 2 KB struct to its stack.
template <class T>
__global__ void forward_kernel(const __grid_constant__ PredictionRowsShape s, float* __restrict__ rows) {
  const ColumnTask task = column_task(s, blockIdx.x, threadIdx.x);
  if (task.active) forward_column<T>(s, task, rows);
}

template <class T>
__global__ void backward_kernel(const __grid_constant__ PredictionRowsShape s, const float* __restrict__ grad_rows,
                                float* __restrict__ partials) {
  const ColumnTask task = column_task(s, blockIdx.x, threadIdx.x);
  if (task.active) partials[int64_t(blockIdx.x) * s.columns + threadIdx.x] = backward_column<T>(s, task, grad_rows);
}

// One warp a (level, column): the level's blocks' partial sums, lane-strided, then a fixed tree.
template <class T>
__global__ void bias_sum_kernel(const __grid_constant__ PredictionRowsShape s, const float* __restrict__ partials) {
  const int64_t warp = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (warp >= int64_t(s.levels) * s.columns) return;
  const int l = static_cast<int>(warp / s.columns), c = static_cast<int>(warp % s.columns);
  const int64_t first_block = level_first_block(s, l);
  const int64_t blocks = tiles_of(s.level[l]) * s.batch;
  float sum = 0.0f;
  for (int64_t b = lane; b < blocks; b += kWarp) sum += partials[(first_block + b) * s.columns + c];
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  const Column column = column_of(s.level[l], c);
  if (lane == 0 && column.part >= 0)
    static_cast<T*>(s.level[l].part[column.part].grad_bias)[column.channel] = from_float<T>(sum);
}

int threads_of(const PredictionRowsShape& s) { return static_cast<int>(ceil_div(s.columns, kWarp) * kWarp); }

template <class T>
int launch_forward(const PredictionRowsShape& s, float* rows, cudaStream_t stream) {
  forward_kernel<T><<<static_cast<unsigned>(blocks_of(s)), threads_of(s), 0, stream>>>(s, rows);
  return static_cast<int>(cudaGetLastError());
}

template <class T>
int launch_backward(const PredictionRowsShape& s, const float* grad_rows, float* partials, cudaStream_t stream) {
  backward_kernel<T><<<static_cast<unsigned>(blocks_of(s)), threads_of(s), 0, stream>>>(s, grad_rows, partials);
  if (const auto error = cudaGetLastError(); error != cudaSuccess) return static_cast<int>(error);
  constexpr int kSumThreads = 256;
  const int64_t warps = int64_t(s.levels) * s.columns;
  const auto blocks = static_cast<unsigned>(ceil_div(warps * kWarp, kSumThreads));
  bias_sum_kernel<T><<<blocks, kSumThreads, 0, stream>>>(s, partials);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

const char* prediction_rows_shape_refusal(const PredictionRowsShape& s) {
  if (s.levels < 1 || s.levels > kPredictionMostLevels) return "not 1 to 6 levels";
  if (s.columns < 1 || s.columns > kPredictionMostColumns) return "more than 1024 output channels";
  if (s.batch < 1 || s.anchors < 1) return "an empty batch or map";
  if (blocks_of(s) >= (int64_t(1) << 31)) return "too many anchors for one launch";
  for (int l = 0; l < s.levels; ++l) {
    const auto& level = s.level[l];
    if (level.parts < 1 || level.parts > kPredictionMostParts) return "not 1 to 4 convolutions a level";
  }
  return "";
}

int64_t prediction_rows_partial_elements(const PredictionRowsShape& s) { return blocks_of(s) * s.columns; }

int prediction_rows_forward(const PredictionRowsShape& shape, float* rows, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (shape.type) {
    case PredictionType::float16: return launch_forward<__half>(shape, rows, s);
    case PredictionType::bfloat16: return launch_forward<__nv_bfloat16>(shape, rows, s);
    case PredictionType::float32: return launch_forward<float>(shape, rows, s);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int prediction_rows_backward(const PredictionRowsShape& shape, const float* grad_rows, float* partials, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (shape.type) {
    case PredictionType::float16: return launch_backward<__half>(shape, grad_rows, partials, s);
    case PredictionType::bfloat16: return launch_backward<__nv_bfloat16>(shape, grad_rows, partials, s);
    case PredictionType::float32: return launch_backward<float>(shape, grad_rows, partials, s);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

const char* prediction_rows_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
