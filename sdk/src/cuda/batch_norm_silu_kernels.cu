// Fused BatchNorm (training statistics) + SiLU, forward and backward. The composed version
// (BatchNorm's training forward, then silu) reads its input twice, writes the normalised tensor,
// reads it again and writes the activation; its backward goes through the normalised tensor
// again. Here the forward reads x twice (statistics, then the output) and writes y once; the
// backward reads x and grad_y twice (sums, then grad_x) and writes grad_x once, recomputing the
// normalised value and silu's derivative instead of storing them.
//
// Every thread owns one channel for the whole of a pass and visits an arithmetic sequence of
// that channel's elements, so per-channel values sit in registers and sums need no atomics:
//  - channels-last (NHWC): a block covers a tile of up to 256 channels (all of them when C is
//    smaller) and a span of rows (the N*H*W positions); consecutive threads read consecutive
//    channels of one row, then the next rows, so a warp reads contiguous memory.
//  - NCHW: a block covers one channel and a span of one image's H*W plane, read contiguously.
// Each block reduces its threads' sums per channel in shared memory and writes one partial per
// channel; a second small kernel combines the partials of a channel in a fixed order. The block
// split depends on the shape alone, so the result is bitwise the same on every run (no float
// atomics), which is what reproducible training needs.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "batch_norm_silu_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;             // a pass's block
constexpr int kFinalLanes = 32;           // a finalising block: 32 channels ...
constexpr int kFinalSlots = 32;           // ... times 32 threads over the partials of each
constexpr int kFinalThreads = kFinalLanes * kFinalSlots;
constexpr int64_t kTargetBlocks = 1024;   // about 8 resident blocks on each of an H200's 132 SMs
constexpr int64_t kMinSteps = 4;          // elements a thread visits at least
constexpr int64_t kMaxGridY = 65535;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// How a pass's blocks split the tensor; the same for its three kernels and for both directions.
struct Geometry {
  int64_t channels = 0, plane = 0, rows = 0;  // C, H*W, N*H*W
  bool channels_last = false;
  int lanes = 1;          // channels a block covers (NHWC); 1 for NCHW
  int64_t tiles = 1;      // blocks across the channels (grid.y)
  int64_t span = 0;       // NHWC: rows a block covers; NCHW: positions of one plane
  int64_t segments = 1;   // NCHW: blocks over one image's plane
  int64_t partials = 0;   // blocks along the reduced dimension (grid.x)
};

Geometry geometry(const BnSiluShape& s) {
  Geometry g;
  g.channels = s.channels;
  g.plane = s.height * s.width;
  g.rows = s.batch * g.plane;
  g.channels_last = s.channels_last;
  if (s.channels_last) {
    g.lanes = static_cast<int>(s.channels < kThreads ? s.channels : kThreads);
    g.tiles = ceil_div(s.channels, g.lanes);
    const int64_t rows_per_step = kThreads / g.lanes;
    const int64_t target = kTargetBlocks / g.tiles > 1 ? kTargetBlocks / g.tiles : 1;
    const int64_t steps = ceil_div(g.rows, rows_per_step * target);
    g.span = rows_per_step * (steps > kMinSteps ? steps : kMinSteps);
    g.partials = ceil_div(g.rows, g.span);
  } else {
    g.tiles = s.channels;
    const int64_t target = kTargetBlocks / s.channels > 1 ? kTargetBlocks / s.channels : 1;
    const int64_t steps = ceil_div(g.rows, kThreads * target);
    g.span = kThreads * (steps > kMinSteps ? steps : kMinSteps);
    g.segments = ceil_div(g.plane, g.span);
    g.partials = s.batch * g.segments;
  }
  return g;
}

dim3 grid_of(const Geometry& g) { return dim3(static_cast<unsigned>(g.partials), static_cast<unsigned>(g.tiles)); }

// The elements one thread visits: offsets start, start + step, ... below end, all of `channel`.
struct Walk {
  bool valid;
  int64_t channel, start, step, end;
};

__device__ inline Walk walk(const Geometry& g) {
  const int t = threadIdx.x;
  Walk w;
  if (g.channels_last) {
    const int rows_per_step = kThreads / g.lanes;
    w.channel = static_cast<int64_t>(blockIdx.y) * g.lanes + t % g.lanes;
    w.valid = t < rows_per_step * g.lanes && w.channel < g.channels;
    const int64_t first_row = static_cast<int64_t>(blockIdx.x) * g.span;
    const int64_t end_row = first_row + g.span < g.rows ? first_row + g.span : g.rows;
    w.start = (first_row + t / g.lanes) * g.channels + w.channel;
    w.step = rows_per_step * g.channels;
    w.end = end_row * g.channels;
  } else {
    w.channel = blockIdx.y;
    w.valid = true;
    const int64_t image = blockIdx.x / g.segments, segment = blockIdx.x % g.segments;
    const int64_t plane_start = (image * g.channels + w.channel) * g.plane;
    const int64_t first = segment * g.span;
    const int64_t end = first + g.span < g.plane ? first + g.span : g.plane;
    w.start = plane_start + first + t;
    w.step = kThreads;
    w.end = plane_start + end;
  }
  if (!w.valid) w.end = w.start;  // visits nothing, still takes part in the block's sums
  return w;
}

__device__ inline float load(const float* p, int64_t i) { return p[i]; }
__device__ inline float load(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ inline void store(float* p, int64_t i, float v) { p[i] = v; }
__device__ inline void store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }

// Count, mean and sum of squared deviations (Chan et al.'s pairwise combination): robust where
// a plain sum of squares would cancel (a mean large against the deviation).
struct Moments {
  float n, mean, m2;
};

__device__ inline Moments combine(const Moments& a, const Moments& b) {
  if (b.n == 0.f) return a;
  if (a.n == 0.f) return b;
  const float n = a.n + b.n, delta = b.mean - a.mean, share = b.n / n;
  return {n, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.n * share};
}

struct Sums {  // the backward's sum of g and of g * xhat, g = grad_y * silu'(z)
  float g, gx;
};

__device__ inline Sums combine(const Sums& a, const Sums& b) { return {a.g + b.g, a.gx + b.gx}; }

// Partials live as [field][partial][channel] floats, so a block's lanes write adjacent channels.
__device__ inline void put(float* ws, int64_t partials, int64_t channels, int64_t p, int64_t c, const Moments& m) {
  ws[p * channels + c] = m.n;
  ws[(partials + p) * channels + c] = m.mean;
  ws[(2 * partials + p) * channels + c] = m.m2;
}
__device__ inline void put(float* ws, int64_t partials, int64_t channels, int64_t p, int64_t c, const Sums& s) {
  ws[p * channels + c] = s.g;
  ws[(partials + p) * channels + c] = s.gx;
}
__device__ inline void get(const float* ws, int64_t partials, int64_t channels, int64_t p, int64_t c, Moments& m) {
  m = {ws[p * channels + c], ws[(partials + p) * channels + c], ws[(2 * partials + p) * channels + c]};
}
__device__ inline void get(const float* ws, int64_t partials, int64_t channels, int64_t p, int64_t c, Sums& s) {
  s = {ws[p * channels + c], ws[(partials + p) * channels + c]};
}

// Combines the values of the `slots` threads of each of `lanes` channels (thread t holds lane
// t % lanes, slot t / lanes) as a tree in a fixed order; returns the lane's total (meaningful
// for every thread). Every thread of the block must call it.
template <class Stat>
__device__ Stat block_total(Stat* cell, const Stat& mine, int lanes, int slots) {
  const int t = threadIdx.x, slot = t / lanes;
  cell[t] = mine;
  __syncthreads();
  for (int s = 1; s < slots; s *= 2) {
    if (slot % (2 * s) == 0 && slot + s < slots) cell[t] = combine(cell[t], cell[t + s * lanes]);
    __syncthreads();
  }
  return cell[t % lanes];
}

__device__ inline float sigmoid(float z) { return 1.f / (1.f + expf(-z)); }

// ---- forward ----

// Per block and channel: the moments of the elements its threads visit. A thread sums
// deviations from its channel's first element (the shift), so that float32 keeps the digits
// of the variance however far the mean is from zero.
template <class T>
__global__ void moments_kernel(Geometry g, const T* __restrict__ x, float* __restrict__ partials) {
  __shared__ Moments cell[kThreads];
  const Walk w = walk(g);
  const float shift = w.valid ? load(x, g.channels_last ? w.channel : w.channel * g.plane) : 0.f;
  float sum = 0.f, squares = 0.f;
  int64_t count = 0;
  for (int64_t i = w.start; i < w.end; i += w.step) {
    const float d = load(x, i) - shift;
    sum += d;
    squares += d * d;
    ++count;
  }
  Moments mine{0.f, 0.f, 0.f};
  if (count > 0) {
    const float n = static_cast<float>(count), mean_d = sum / n;
    mine = {n, shift + mean_d, fmaxf(squares - sum * mean_d, 0.f)};
  }
  const Moments total = block_total(cell, mine, g.lanes, kThreads / g.lanes);
  if (threadIdx.x < g.lanes && w.valid) put(partials, g.partials, g.channels, blockIdx.x, w.channel, total);
}

struct Running {
  float* mean;
  float* var;
  float momentum, eps;
};

// Per channel: the partials combined in a fixed order; the saved mean and 1 / sqrt(var + eps)
// (biased variance, as BatchNorm normalises), and the running statistics moved towards the
// batch's as PyTorch does: running = momentum * batch + (1 - momentum) * running, with the
// unbiased variance (m2 / (n - 1)).
__global__ void finalize_moments_kernel(int64_t channels, int64_t partials, const float* __restrict__ ws,
                                        Running running, float* __restrict__ save_mean,
                                        float* __restrict__ save_invstd) {
  __shared__ Moments cell[kFinalThreads];
  const int lane = threadIdx.x % kFinalLanes, slot = threadIdx.x / kFinalLanes;
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kFinalLanes + lane;
  Moments mine{0.f, 0.f, 0.f};
  if (c < channels) {
    for (int64_t p = slot; p < partials; p += kFinalSlots) {
      Moments part;
      get(ws, partials, channels, p, c, part);
      mine = combine(mine, part);
    }
  }
  const Moments total = block_total(cell, mine, kFinalLanes, kFinalSlots);
  if (slot != 0 || c >= channels) return;
  const float var = total.m2 / total.n;
  save_mean[c] = total.mean;
  save_invstd[c] = 1.f / sqrtf(var + running.eps);
  const float keep = 1.f - running.momentum;
  running.mean[c] = running.momentum * total.mean + keep * running.mean[c];
  running.var[c] = running.momentum * (total.m2 / (total.n - 1.f)) + keep * running.var[c];
}

struct Affine {  // the per-channel values every elementwise pass reads
  const float* mean;
  const float* invstd;
  const float* weight;
  const float* bias;
};

// y = silu(z), z = weight * (x - mean) * invstd + bias (BatchNorm's order of operations).
template <class T>
__global__ void forward_apply_kernel(Geometry g, const T* __restrict__ x, Affine a, T* __restrict__ y) {
  const Walk w = walk(g);
  if (!w.valid) return;
  const float mean = a.mean[w.channel], invstd = a.invstd[w.channel], weight = a.weight[w.channel],
              bias = a.bias[w.channel];
  for (int64_t i = w.start; i < w.end; i += w.step) {
    const float z = weight * (load(x, i) - mean) * invstd + bias;
    store(y, i, z / (1.f + expf(-z)));  // silu as PyTorch's CUDA kernel writes it
  }
}

// ---- backward ----

// g = grad_y * silu'(z), silu'(z) = s * (1 + z * (1 - s)) with s = sigmoid(z), z recomputed.
template <class T>
__device__ inline float activation_grad(const T* x, const T* grad_y, int64_t i, float mean, float invstd,
                                        float weight, float bias, float& xhat) {
  const float v = load(x, i);
  xhat = (v - mean) * invstd;
  const float z = weight * (v - mean) * invstd + bias, s = sigmoid(z);
  return load(grad_y, i) * s * (1.f + z * (1.f - s));
}

// Per block and channel: the sums of g (the bias's gradient) and of g * xhat (the weight's).
template <class T>
__global__ void grad_sums_kernel(Geometry g, const T* __restrict__ x, const T* __restrict__ grad_y, Affine a,
                                 float* __restrict__ partials) {
  __shared__ Sums cell[kThreads];
  const Walk w = walk(g);
  Sums mine{0.f, 0.f};
  if (w.valid) {
    const float mean = a.mean[w.channel], invstd = a.invstd[w.channel], weight = a.weight[w.channel],
                bias = a.bias[w.channel];
    for (int64_t i = w.start; i < w.end; i += w.step) {
      float xhat;
      const float gi = activation_grad(x, grad_y, i, mean, invstd, weight, bias, xhat);
      mine.g += gi;
      mine.gx += gi * xhat;
    }
  }
  const Sums total = block_total(cell, mine, g.lanes, kThreads / g.lanes);
  if (threadIdx.x < g.lanes && w.valid) put(partials, g.partials, g.channels, blockIdx.x, w.channel, total);
}

// Per channel: the partial sums added in a fixed order; they are the bias's and the weight's
// gradients.
__global__ void finalize_sums_kernel(int64_t channels, int64_t partials, const float* __restrict__ ws,
                                     float* __restrict__ grad_weight, float* __restrict__ grad_bias) {
  __shared__ Sums cell[kFinalThreads];
  const int lane = threadIdx.x % kFinalLanes, slot = threadIdx.x / kFinalLanes;
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kFinalLanes + lane;
  Sums mine{0.f, 0.f};
  if (c < channels) {
    for (int64_t p = slot; p < partials; p += kFinalSlots) {
      Sums part;
      get(ws, partials, channels, p, c, part);
      mine = combine(mine, part);
    }
  }
  const Sums total = block_total(cell, mine, kFinalLanes, kFinalSlots);
  if (slot != 0 || c >= channels) return;
  grad_bias[c] = total.g;
  grad_weight[c] = total.gx;
}

// grad_x = weight * invstd * (g - mean(g) - xhat * mean(g * xhat)): BatchNorm's training
// backward with the batch's statistics, g the gradient through silu.
template <class T>
__global__ void backward_apply_kernel(Geometry g, const T* __restrict__ x, const T* __restrict__ grad_y, Affine a,
                                      const float* __restrict__ grad_weight, const float* __restrict__ grad_bias,
                                      float inv_count, T* __restrict__ grad_x) {
  const Walk w = walk(g);
  if (!w.valid) return;
  const float mean = a.mean[w.channel], invstd = a.invstd[w.channel], weight = a.weight[w.channel],
              bias = a.bias[w.channel];
  const float mean_g = grad_bias[w.channel] * inv_count, mean_gx = grad_weight[w.channel] * inv_count;
  const float scale = weight * invstd;
  for (int64_t i = w.start; i < w.end; i += w.step) {
    float xhat;
    const float gi = activation_grad(x, grad_y, i, mean, invstd, weight, bias, xhat);
    store(grad_x, i, scale * (gi - mean_g - xhat * mean_gx));
  }
}

// ---- launches ----

bool launchable(const BnSiluShape& s, const Geometry& g) {
  return s.batch > 0 && s.channels > 0 && g.plane > 0 && g.tiles <= kMaxGridY && g.partials <= 0x7fffffff;
}

unsigned final_blocks(int64_t channels) { return static_cast<unsigned>(ceil_div(channels, kFinalLanes)); }

template <class T>
int forward_as(const BnSiluShape& s, const BnSiluForwardArgs& a, cudaStream_t stream) {
  const Geometry g = geometry(s);
  const T* x = static_cast<const T*>(a.x);
  moments_kernel<T><<<grid_of(g), kThreads, 0, stream>>>(g, x, a.workspace);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  finalize_moments_kernel<<<final_blocks(s.channels), kFinalThreads, 0, stream>>>(
      s.channels, g.partials, a.workspace, Running{a.running_mean, a.running_var, a.momentum, a.eps}, a.save_mean,
      a.save_invstd);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  forward_apply_kernel<T><<<grid_of(g), kThreads, 0, stream>>>(
      g, x, Affine{a.save_mean, a.save_invstd, a.weight, a.bias}, static_cast<T*>(a.y));
  return static_cast<int>(cudaGetLastError());
}

template <class T>
int backward_as(const BnSiluShape& s, const BnSiluBackwardArgs& a, cudaStream_t stream) {
  const Geometry g = geometry(s);
  const T* x = static_cast<const T*>(a.x);
  const T* grad_y = static_cast<const T*>(a.grad_y);
  const Affine affine{a.save_mean, a.save_invstd, a.weight, a.bias};
  grad_sums_kernel<T><<<grid_of(g), kThreads, 0, stream>>>(g, x, grad_y, affine, a.workspace);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  finalize_sums_kernel<<<final_blocks(s.channels), kFinalThreads, 0, stream>>>(s.channels, g.partials, a.workspace,
                                                                              a.grad_weight, a.grad_bias);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  const float inv_count = static_cast<float>(1.0 / static_cast<double>(g.rows));
  backward_apply_kernel<T><<<grid_of(g), kThreads, 0, stream>>>(g, x, grad_y, affine, a.grad_weight, a.grad_bias,
                                                                inv_count, static_cast<T*>(a.grad_x));
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int64_t bn_silu_forward_workspace(const BnSiluShape& shape) { return 3 * geometry(shape).partials * shape.channels; }

int64_t bn_silu_backward_workspace(const BnSiluShape& shape) { return 2 * geometry(shape).partials * shape.channels; }

int bn_silu_forward(const BnSiluShape& shape, const BnSiluForwardArgs& args, void* stream) {
  if (!launchable(shape, geometry(shape))) return static_cast<int>(cudaErrorInvalidValue);
  const auto s = static_cast<cudaStream_t>(stream);
  return shape.half ? forward_as<__half>(shape, args, s) : forward_as<float>(shape, args, s);
}

int bn_silu_backward(const BnSiluShape& shape, const BnSiluBackwardArgs& args, void* stream) {
  if (!launchable(shape, geometry(shape))) return static_cast<int>(cudaErrorInvalidValue);
  const auto s = static_cast<cudaStream_t>(stream);
  return shape.half ? backward_as<__half>(shape, args, s) : backward_as<float>(shape, args, s);
}

const char* bn_silu_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
