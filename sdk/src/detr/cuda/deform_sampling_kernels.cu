// Fused multi-scale deformable-attention sampling (forward and backward), one thread per
// (image, query, head, channel). The composed PyTorch version runs, per level, a permute copy of
// the values, a grid_sample, then a stack, a multiply and a sum: several kernels and autograd
// nodes per level and decoder layer, each issued by the host. Here one kernel does every level
// and point forward and one backward. The channel count per head must be a power of two up to
// 32, so that one head's channels are adjacent lanes of one warp and the per-point sums over
// channels (the weights' and locations' gradients) are warp shuffles, without atomics.
#include <cuda_runtime.h>

#include "deform_sampling_kernels.hpp"

namespace libreyolo::sdk::detr::fused {
namespace {

constexpr int kThreads = 256;

// Bilinear sampling of one channel at pixel coordinates (x, y), zero outside the image, with the
// four corner weights and values kept for the backward.
struct Bilinear {
  int64_t offset[4];  // element offsets of the corners from the level's first position, or -1
  float weight[4];
  float value[4];
};

__device__ inline bool corners(float x, float y, int h, int w, int64_t position_stride, Bilinear& b) {
  // Every corner outside (and NaN): nothing to read. Also keeps huge values from the int casts.
  if (!(x > -1.f && x < static_cast<float>(w) && y > -1.f && y < static_cast<float>(h))) return false;
  const float x0f = floorf(x), y0f = floorf(y);
  const float fx = x - x0f, fy = y - y0f;
  const int x0 = static_cast<int>(x0f), y0 = static_cast<int>(y0f);
  const int xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
  const float ws[4] = {(1.f - fy) * (1.f - fx), (1.f - fy) * fx, fy * (1.f - fx), fy * fx};
  for (int k = 0; k < 4; ++k) {
    const bool inside = xs[k] >= 0 && xs[k] < w && ys[k] >= 0 && ys[k] < h;
    b.offset[k] = inside ? (static_cast<int64_t>(ys[k]) * w + xs[k]) * position_stride : -1;
    b.weight[k] = ws[k];
  }
  return true;
}

struct ThreadIndex {
  bool valid;
  int64_t channel, head, query, image;
};

__device__ inline ThreadIndex thread_index(const SamplingShape& s) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t total = s.batch * s.queries * s.heads * s.channels;
  const int64_t j = i < total ? i : 0;  // out-of-range threads still take part in the shuffles
  return {i < total, j % s.channels, (j / s.channels) % s.heads, (j / (s.channels * s.heads)) % s.queries,
          j / (s.channels * s.heads * s.queries)};
}

__global__ void forward_kernel(SamplingShape s, const float* __restrict__ value, const float* __restrict__ locations,
                               const float* __restrict__ weights, float* __restrict__ out) {
  const auto t = thread_index(s);
  if (!t.valid) return;  // no shuffles in the forward
  const int64_t position_stride = s.heads * s.channels;
  const float* image_value = value + t.image * s.positions * position_stride + t.head * s.channels + t.channel;
  const int64_t point_row = ((t.image * s.queries + t.query) * s.heads + t.head) * s.total_points;
  float sum = 0.f;
  for (int level = 0; level < s.levels; ++level) {
    const float* level_value = image_value + s.first_position[level] * position_stride;
    const int h = s.height[level], w = s.width[level];
    for (int p = 0; p < s.points[level]; ++p) {
      const int64_t point = point_row + s.first_point[level] + p;
      const float x = locations[2 * point] * w - 0.5f, y = locations[2 * point + 1] * h - 0.5f;
      Bilinear b;
      if (!corners(x, y, h, w, position_stride, b)) continue;
      float sample = 0.f;
      for (int k = 0; k < 4; ++k)
        if (b.offset[k] >= 0) sample += b.weight[k] * level_value[b.offset[k]];
      sum += weights[point] * sample;
    }
  }
  out[((t.image * s.queries + t.query) * s.heads + t.head) * s.channels + t.channel] = sum;
}

// Sums v over the `channels` adjacent lanes of one head (a power of two up to 32).
__device__ inline float head_sum(float v, int channels) {
  for (int offset = channels / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void backward_kernel(SamplingShape s, const float* __restrict__ value, const float* __restrict__ locations,
                                const float* __restrict__ weights, const float* __restrict__ grad_out,
                                float* __restrict__ grad_value, float* __restrict__ grad_locations,
                                float* __restrict__ grad_weights) {
  const auto t = thread_index(s);
  const int64_t position_stride = s.heads * s.channels;
  const int64_t image_offset = t.image * s.positions * position_stride + t.head * s.channels + t.channel;
  const int64_t point_row = ((t.image * s.queries + t.query) * s.heads + t.head) * s.total_points;
  const float g = t.valid ? grad_out[((t.image * s.queries + t.query) * s.heads + t.head) * s.channels + t.channel] : 0.f;
  for (int level = 0; level < s.levels; ++level) {
    const int64_t level_offset = image_offset + s.first_position[level] * position_stride;
    const int h = s.height[level], w = s.width[level];
    for (int p = 0; p < s.points[level]; ++p) {
      const int64_t point = point_row + s.first_point[level] + p;
      const float x = locations[2 * point] * w - 0.5f, y = locations[2 * point + 1] * h - 0.5f;
      const float attention = weights[point];
      float d_weight = 0.f, d_x = 0.f, d_y = 0.f;
      Bilinear b;
      if (t.valid && corners(x, y, h, w, position_stride, b)) {
        for (int k = 0; k < 4; ++k) b.value[k] = b.offset[k] >= 0 ? value[level_offset + b.offset[k]] : 0.f;
        const float fx = x - floorf(x), fy = y - floorf(y);
        d_weight = g * (b.weight[0] * b.value[0] + b.weight[1] * b.value[1] + b.weight[2] * b.value[2] +
                        b.weight[3] * b.value[3]);
        // d sample / dx and / dy of the bilinear form, times d x / d location = w (and h).
        const float ds_dx = (1.f - fy) * (b.value[1] - b.value[0]) + fy * (b.value[3] - b.value[2]);
        const float ds_dy = (1.f - fx) * (b.value[2] - b.value[0]) + fx * (b.value[3] - b.value[1]);
        d_x = g * attention * ds_dx * w;
        d_y = g * attention * ds_dy * h;
        for (int k = 0; k < 4; ++k)
          if (b.offset[k] >= 0) atomicAdd(grad_value + level_offset + b.offset[k], g * attention * b.weight[k]);
      }
      d_weight = head_sum(d_weight, static_cast<int>(s.channels));
      d_x = head_sum(d_x, static_cast<int>(s.channels));
      d_y = head_sum(d_y, static_cast<int>(s.channels));
      if (t.valid && t.channel == 0) {
        grad_weights[point] = d_weight;
        grad_locations[2 * point] = d_x;
        grad_locations[2 * point + 1] = d_y;
      }
    }
  }
}

unsigned blocks_for(const SamplingShape& s) {
  const int64_t total = s.batch * s.queries * s.heads * s.channels;
  return static_cast<unsigned>((total + kThreads - 1) / kThreads);
}

}  // namespace

int sampling_forward(const SamplingShape& shape, const float* value, const float* locations, const float* weights,
                     float* out, void* stream) {
  if (blocks_for(shape) == 0) return 0;
  forward_kernel<<<blocks_for(shape), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(shape, value, locations,
                                                                                       weights, out);
  return static_cast<int>(cudaGetLastError());
}

int sampling_backward(const SamplingShape& shape, const float* value, const float* locations, const float* weights,
                      const float* grad_out, float* grad_value, float* grad_locations, float* grad_weights,
                      void* stream) {
  if (blocks_for(shape) == 0) return 0;
  backward_kernel<<<blocks_for(shape), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      shape, value, locations, weights, grad_out, grad_value, grad_locations, grad_weights);
  return static_cast<int>(cudaGetLastError());
}

const char* cuda_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::detr::fused
