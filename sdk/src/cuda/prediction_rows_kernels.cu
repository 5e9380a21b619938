// prediction_rows_kernels.hpp's kernels. A block takes one tile of kRows anchors of one level and
// one image, one thread a column of the rows: the rows are read and written a whole row at a time
// (consecutive threads, consecutive floats) and a channels-last output's channels are consecutive
// too. The backward's bias sums are each thread's own column over its tile (a fixed order), then
// one warp a column adds the tiles' sums in a fixed order: the same bits every run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "launch_size.cuh"
#include "prediction_rows_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kRows = 64;  // anchors a block
constexpr int kWarp = 32;

__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float to_float(float v) { return v; }
template <class T>
__device__ inline T from_float(float v);
template <>
__device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ inline float from_float<float>(float v) { return v; }

__host__ __device__ inline int64_t tiles_of(const PredictionLevel& level) {
  return (int64_t(level.height) * level.width + kRows - 1) / kRows;
}

struct Tile {
  int level = 0, image = 0;
  int64_t first = 0, end = 0;  // positions (h * W + w) within the level
};

// Blocks run level by level, image by image, tile by tile.
__device__ inline Tile tile_of(const PredictionRowsShape& s, int64_t block) {
  Tile t;
  for (int l = 0; l < s.levels; ++l) {
    const int64_t tiles = tiles_of(s.level[l]);
    if (block < tiles * s.batch) {
      t.level = l;
      t.image = static_cast<int>(block / tiles);
      t.first = (block % tiles) * kRows;
      const int64_t positions = int64_t(s.level[l].height) * s.level[l].width;
      t.end = t.first + kRows < positions ? t.first + kRows : positions;
      return t;
    }
    block -= tiles * s.batch;
  }
  return t;
}

struct Column {
  int part = -1, channel = 0;
};

__device__ inline Column column_of(const PredictionLevel& level, int c) {
  for (int p = 0; p < level.parts; ++p) {
    const auto& part = level.part[p];
    if (c >= part.column && c < part.column + part.channels) return {p, c - part.column};
  }
  return {};
}

// The elements of a part's map at the tile's image and the thread's channel, position by position
// (h * W + w, row-major): the offset steps along w and wraps to the next row without a division.
class MapWalk {
 public:
  __device__ MapWalk(const PredictionPart& part, int image, int channel, int64_t first, int width)
      : stride_h_(part.stride_h), stride_w_(part.stride_w), width_(width) {
    const int64_t h = first / width;
    w_ = static_cast<int>(first - h * width);
    row_ = image * part.stride_b + channel * part.stride_c + h * part.stride_h;
  }
  __device__ int64_t offset() const { return row_ + w_ * stride_w_; }
  __device__ void next() {
    if (++w_ == width_) w_ = 0, row_ += stride_h_;
  }

 private:
  int64_t row_;
  int64_t stride_h_, stride_w_;
  int width_, w_;
};

// The kernels take the shape as a __grid_constant__ parameter: ColumnTask points into it, and a
// pointer into a plain kernel parameter would make every thread copy the 2 KB struct to its stack.

// What a thread of the forward or backward works on: its block's tile and its column's part, or
// nothing (a column past C in the block's last warp).
struct ColumnTask {
  bool active = false;
  Tile tile;
  const PredictionLevel* level = nullptr;
  const PredictionPart* part = nullptr;
  int channel = 0;       // within the part
  int64_t first_row = 0;  // the tile's first row in the [B, A, C] rows, times C, plus the column

  __device__ MapWalk walk() const { return MapWalk(*part, tile.image, channel, tile.first, level->width); }
};

__device__ inline ColumnTask column_task(const PredictionRowsShape& s) {
  ColumnTask task;
  const int c = threadIdx.x;
  if (c >= s.columns) return task;
  task.tile = tile_of(s, blockIdx.x);
  task.level = &s.level[task.tile.level];
  const Column column = column_of(*task.level, c);
  if (column.part < 0) return task;
  task.part = &task.level->part[column.part];
  task.channel = column.channel;
  task.first_row = (int64_t(task.tile.image) * s.anchors + task.level->first_anchor) * s.columns + c;
  task.active = true;
  return task;
}

template <class T>
__global__ void forward_kernel(const __grid_constant__ PredictionRowsShape s, float* __restrict__ rows) {
  const ColumnTask task = column_task(s);
  if (!task.active) return;
  const T* y = static_cast<const T*>(task.part->y);
  // As PyTorch adds a convolution's bias: in float, rounded to the convolution's type.
  const float bias = to_float(static_cast<const T*>(task.part->bias)[task.channel]);
  float* out = rows + task.first_row;
  MapWalk walk = task.walk();
  for (int64_t pos = task.tile.first; pos < task.tile.end; ++pos, walk.next())
    out[pos * s.columns] = to_float(from_float<T>(to_float(y[walk.offset()]) + bias));
}

template <class T>
__global__ void backward_kernel(const __grid_constant__ PredictionRowsShape s, const float* __restrict__ grad_rows,
                                float* __restrict__ partials) {
  const ColumnTask task = column_task(s);
  if (!task.active) return;
  T* grad_y = static_cast<T*>(task.part->grad_y);
  const float* in = grad_rows + task.first_row;
  float sum = 0.0f;
  MapWalk walk = task.walk();
  for (int64_t pos = task.tile.first; pos < task.tile.end; ++pos, walk.next()) {
    const T g = from_float<T>(in[pos * s.columns]);
    grad_y[walk.offset()] = g;
    sum += to_float(g);  // the bias gradient sums the gradient as the convolution's type holds it
  }
  partials[int64_t(blockIdx.x) * s.columns + threadIdx.x] = sum;
}

// One warp a (level, column): the level's blocks' partial sums, lane-strided, then a fixed tree.
template <class T>
__global__ void bias_sum_kernel(const __grid_constant__ PredictionRowsShape s, const float* __restrict__ partials) {
  const int64_t warp = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (warp >= int64_t(s.levels) * s.columns) return;
  const int l = static_cast<int>(warp / s.columns), c = static_cast<int>(warp % s.columns);
  int64_t first_block = 0;
  for (int k = 0; k < l; ++k) first_block += tiles_of(s.level[k]) * s.batch;
  const int64_t blocks = tiles_of(s.level[l]) * s.batch;
  float sum = 0.0f;
  for (int64_t b = lane; b < blocks; b += kWarp) sum += partials[(first_block + b) * s.columns + c];
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  const Column column = column_of(s.level[l], c);
  if (lane == 0 && column.part >= 0)
    static_cast<T*>(s.level[l].part[column.part].grad_bias)[column.channel] = from_float<T>(sum);
}

int64_t blocks_of(const PredictionRowsShape& s) {
  int64_t blocks = 0;
  for (int l = 0; l < s.levels; ++l) blocks += tiles_of(s.level[l]) * s.batch;
  return blocks;
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
