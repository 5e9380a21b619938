#pragma once
// prediction_rows_kernels.cu's per-thread code: which tile and column a thread takes, how it walks
// a convolution's map, and its forward and backward over one column of one tile. nvcc compiles it
// into the kernels; the unit tests include it and run the float32 instances on the CPU against
// the composed ops, so the CPU build checks the kernels' indexing (tests/unit/sdk/
// test_prediction_rows.cpp). No torch headers.
#include <cstdint>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "host_device.cuh"
#include "prediction_rows_kernels.hpp"

namespace libreyolo::sdk::fused::prediction_rows {

constexpr int kRows = 64;  // anchors a block

// The convolutions' types to and from float: float on both sides, float16 and bfloat16 on the
// device (the CPU tests run the float32 instances).
LIBREYOLO_HOST_DEVICE inline float to_float(float v) { return v; }
template <class T>
LIBREYOLO_HOST_DEVICE inline T from_float(float v);
template <>
LIBREYOLO_HOST_DEVICE inline float from_float<float>(float v) { return v; }
#ifdef __CUDACC__
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <>
__device__ inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
#endif

LIBREYOLO_HOST_DEVICE inline int64_t tiles_of(const PredictionLevel& level) {
  return (int64_t(level.height) * level.width + kRows - 1) / kRows;
}

struct Tile {
  int level = 0, image = 0;
  int64_t first = 0, end = 0;  // positions (h * W + w) within the level
};

// Blocks run level by level, image by image, tile by tile.
LIBREYOLO_HOST_DEVICE inline Tile tile_of(const PredictionRowsShape& s, int64_t block) {
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

LIBREYOLO_HOST_DEVICE inline Column column_of(const PredictionLevel& level, int c) {
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
  LIBREYOLO_HOST_DEVICE MapWalk(const PredictionPart& part, int image, int channel, int64_t first, int width)
      : stride_h_(part.stride_h), stride_w_(part.stride_w), width_(width) {
    const int64_t h = first / width;
    w_ = static_cast<int>(first - h * width);
    row_ = image * part.stride_b + channel * part.stride_c + h * part.stride_h;
  }
  LIBREYOLO_HOST_DEVICE int64_t offset() const { return row_ + w_ * stride_w_; }
  LIBREYOLO_HOST_DEVICE void next() {
    if (++w_ == width_) w_ = 0, row_ += stride_h_;
  }

 private:
  int64_t row_;
  int64_t stride_h_, stride_w_;
  int width_, w_;
};

// What a thread of the forward or backward works on: its block's tile and its column's part, or
// nothing (a column past C in the block's last warp).
struct ColumnTask {
  bool active = false;
  Tile tile;
  const PredictionLevel* level = nullptr;
  const PredictionPart* part = nullptr;
  int channel = 0;       // within the part
  int64_t first_row = 0;  // the tile's first row in the [B, A, C] rows, times C, plus the column

  LIBREYOLO_HOST_DEVICE MapWalk walk() const { return MapWalk(*part, tile.image, channel, tile.first, level->width); }
};

// Thread `c` of block `block`.
LIBREYOLO_HOST_DEVICE inline ColumnTask column_task(const PredictionRowsShape& s, int64_t block, int c) {
  ColumnTask task;
  if (c >= s.columns) return task;
  task.tile = tile_of(s, block);
  task.level = &s.level[task.tile.level];
  const Column column = column_of(*task.level, c);
  if (column.part < 0) return task;
  task.part = &task.level->part[column.part];
  task.channel = column.channel;
  task.first_row = (int64_t(task.tile.image) * s.anchors + task.level->first_anchor) * s.columns + c;
  task.active = true;
  return task;
}

// The forward of one column of one tile: rows[row, c] = float(T(y + bias)), as PyTorch adds a
// convolution's bias (in float, rounded to the convolution's type).
template <class T>
LIBREYOLO_HOST_DEVICE inline void forward_column(const PredictionRowsShape& s, const ColumnTask& task, float* rows) {
  const T* y = static_cast<const T*>(task.part->y);
  const float bias = to_float(static_cast<const T*>(task.part->bias)[task.channel]);
  float* out = rows + task.first_row;
  MapWalk walk = task.walk();
  for (int64_t pos = task.tile.first; pos < task.tile.end; ++pos, walk.next())
    out[pos * s.columns] = to_float(from_float<T>(to_float(y[walk.offset()]) + bias));
}

// The backward of one column of one tile: grad_y = T(grad_rows); returns their sum (the tile's
// share of the bias gradient, summed as the convolution's type holds the gradient).
template <class T>
LIBREYOLO_HOST_DEVICE inline float backward_column(const PredictionRowsShape& s, const ColumnTask& task,
                                                   const float* grad_rows) {
  T* grad_y = static_cast<T*>(task.part->grad_y);
  const float* in = grad_rows + task.first_row;
  float sum = 0.0f;
  MapWalk walk = task.walk();
  for (int64_t pos = task.tile.first; pos < task.tile.end; ++pos, walk.next()) {
    const T g = from_float<T>(in[pos * s.columns]);
    grad_y[walk.offset()] = g;
    sum += to_float(g);
  }
  return sum;
}

// The blocks of a launch, and level l's first block (blocks run level by level).
LIBREYOLO_HOST_DEVICE inline int64_t level_first_block(const PredictionRowsShape& s, int l) {
  int64_t first = 0;
  for (int k = 0; k < l; ++k) first += tiles_of(s.level[k]) * s.batch;
  return first;
}
LIBREYOLO_HOST_DEVICE inline int64_t blocks_of(const PredictionRowsShape& s) { return level_first_block(s, s.levels); }

}  // namespace libreyolo::sdk::fused::prediction_rows
