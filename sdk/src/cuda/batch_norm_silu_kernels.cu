// Fused BatchNorm (training statistics) + SiLU, forward and backward. The composed version
// (BatchNorm's training forward, then silu) reads its input twice, writes the normalised tensor,
// reads it again and writes the activation; its backward goes through the normalised tensor
// again. Here the forward reads x twice (statistics, then the output) and writes y once; the
// backward reads x and grad_y twice (sums, then grad_x) and writes grad_x once, recomputing the
// normalised value and silu's derivative instead of storing them.
//
// Every thread owns V consecutive channels for the whole of a pass and visits an arithmetic
// sequence of rows, so per-channel values sit in registers and sums need no atomics:
//  - channels-last (NHWC): a block covers a tile of up to 256 * V channels (all of them when C
//    is smaller) and a span of rows (the N*H*W positions); consecutive threads read consecutive
//    channels of one row, then the next rows, so a warp reads contiguous memory. Where C is a
//    multiple of V = 16 bytes' worth of elements and every pointer is 16-byte aligned, each
//    access is one 16-byte load or store (V = 8 float16 or 4 float32 channels): a memory-bound
//    kernel needs that many bytes in flight to approach the bandwidth (scalar float16 accesses
//    ran the first version of this kernel slower than cuDNN's BatchNorm). Else V = 1.
//  - NCHW: a block covers one channel and a span of one image's H*W plane, read contiguously
//    (V = 1; the trainer runs channels-last on CUDA).
// Each block reduces its threads' sums per channel in shared memory and writes one partial per
// channel; a second small kernel combines the partials of a channel in a fixed order. The grid is
// one wave of the device's resident blocks; the split depends on the shape and the device
// alone, so the result is bitwise the same on every run (no float atomics), which is what
// reproducible training needs.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "batch_norm_silu_kernels.hpp"
#include "launch_size.cuh"
#include "batch_norm_silu_device.cuh"
#include "vector_access.cuh"

namespace libreyolo::sdk::fused {
namespace {

using namespace bn_silu;

constexpr int kThreads = 256;             // a pass's block
constexpr int kFinalLanes = 32;           // a finalising block: 32 channels ...
constexpr int kFinalSlots = 32;           // ... times 32 threads over the partials of each
constexpr int kFinalThreads = kFinalLanes * kFinalSlots;
constexpr int64_t kFallbackBlocks = 1024; // where the device's occupancy cannot be read
constexpr int64_t kMinSteps = 4;          // rows a thread visits at least
constexpr int64_t kMaxGridY = 65535;
// The backward's passes hold six per-channel values for each of 8 channels in registers; at two
// blocks of 256 threads per SM (88 registers) too few bytes would be in flight to keep HBM busy,
// so ptxas is asked to fit three.
constexpr int kBackwardBlocksPerSm = 3;
constexpr int kMaxVector = kVectorBytes / 2;  // float16's


// How a pass's blocks split the tensor; the same for its three kernels.
struct Geometry {
  int64_t channels = 0, plane = 0, rows = 0;  // C, H*W, N*H*W
  bool channels_last = false;
  int vector = 1;         // channels one thread reads per access (NHWC)
  int lanes = 1;          // threads across a block's channels (NHWC); 1 for NCHW
  int64_t tiles = 1;      // blocks across the channels (grid.y)
  int64_t span = 0;       // NHWC: rows a block covers; NCHW: positions of one plane
  int64_t segments = 1;   // NCHW: blocks over one image's plane
  int64_t partials = 0;   // blocks along the reduced dimension (grid.x)
};

int vector_for(const BnSiluShape& s) {
  const int v = s.half ? vector_of<__half>() : vector_of<float>();
  return s.channels_last && s.aligned16 && s.channels % v == 0 ? v : 1;
}

Geometry geometry_in(const BnSiluShape& s, int64_t wave) {
  Geometry g;
  g.channels = s.channels;
  g.plane = s.height * s.width;
  g.rows = s.batch * g.plane;
  g.channels_last = s.channels_last;
  if (s.channels_last) {
    g.vector = vector_for(s);
    const int64_t vectors = ceil_div(s.channels, g.vector);
    g.lanes = static_cast<int>(vectors < kThreads ? vectors : kThreads);
    g.tiles = ceil_div(vectors, g.lanes);
    const int64_t rows_per_step = kThreads / g.lanes;
    const int64_t target = wave / g.tiles > 1 ? wave / g.tiles : 1;
    const int64_t steps = ceil_div(g.rows, rows_per_step * target);
    g.span = rows_per_step * (steps > kMinSteps ? steps : kMinSteps);
    g.partials = ceil_div(g.rows, g.span);
  } else {
    g.tiles = s.channels;
    const int64_t target = wave / s.channels > 1 ? wave / s.channels : 1;
    const int64_t steps = ceil_div(g.rows, kThreads * target);
    g.span = kThreads * (steps > kMinSteps ? steps : kMinSteps);
    g.segments = ceil_div(g.plane, g.span);
    g.partials = s.batch * g.segments;
  }
  return g;
}

dim3 grid_of(const Geometry& g) { return dim3(static_cast<unsigned>(g.partials), static_cast<unsigned>(g.tiles)); }

// The elements one thread visits: offsets start, start + step, ... below end; at each, the V
// channels channel .. channel + V - 1.
struct Walk {
  bool valid;
  int64_t channel, start, step, end;
};

template <int V>
__device__ inline Walk walk(const Geometry& g) {
  const int t = threadIdx.x;
  Walk w;
  if (g.channels_last) {
    const int rows_per_step = kThreads / g.lanes;
    w.channel = (static_cast<int64_t>(blockIdx.y) * g.lanes + t % g.lanes) * V;
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

// Combines the V values of the `slots` threads of each of `lanes` lanes (thread t holds lane
// t % lanes, slot t / lanes) as a tree in a fixed order; `mine` becomes the lane's totals
// (meaningful for every thread). Every thread of the block must call it; `cell` holds
// blockDim.x * V values.
template <int V, class Stat>
__device__ void block_total(Stat* cell, Stat (&mine)[V], int lanes, int slots) {
  const int t = threadIdx.x, slot = t / lanes;
#pragma unroll
  for (int v = 0; v < V; ++v) cell[t * V + v] = mine[v];
  __syncthreads();
  for (int s = 1; s < slots; s *= 2) {
    if (slot % (2 * s) == 0 && slot + s < slots) {
      const int other = t + s * lanes;
#pragma unroll
      for (int v = 0; v < V; ++v) cell[t * V + v] = combine(cell[t * V + v], cell[other * V + v]);
    }
    __syncthreads();
  }
  const int head = t % lanes;
#pragma unroll
  for (int v = 0; v < V; ++v) mine[v] = cell[head * V + v];
}

// Pairs of the passes' per-channel results go out only from the threads of slot 0.
template <int V, class Stat>
__device__ inline void put_all(float* ws, const Geometry& g, const Walk& w, const Stat (&total)[V]) {
  if (threadIdx.x >= g.lanes || !w.valid) return;
#pragma unroll
  for (int v = 0; v < V; ++v) put(ws, g.partials, g.channels, blockIdx.x, w.channel + v, total[v]);
}

// ---- forward ----

// Per block and channel: the moments of the elements its threads visit (shifted_moments).
template <class T, int V>
__global__ void __launch_bounds__(kThreads) moments_kernel(Geometry g, const T* __restrict__ x,
                                                         float* __restrict__ partials) {
  __shared__ Moments cell[kThreads * V];
  const Walk w = walk<V>(g);
  ShiftedSums<V> sums;
  sums.clear();
  if (w.valid) sums.start(x, g.channels_last ? w.channel : w.channel * g.plane);
  for (int64_t i = w.start; i < w.end; i += w.step) {
    float value[V];
    load<V>(x, i, value);
    sums.add(value);
  }
  Moments mine[V];
  sums.moments(mine);
  block_total<V>(cell, mine, g.lanes, kThreads / g.lanes);
  put_all<V>(partials, g, w, mine);
}

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
  Moments mine[1] = {{0.f, 0.f, 0.f}};
  if (c < channels) {
    for (int64_t p = slot; p < partials; p += kFinalSlots) {
      Moments part;
      get(ws, partials, channels, p, c, part);
      mine[0] = combine(mine[0], part);
    }
  }
  block_total<1>(cell, mine, kFinalLanes, kFinalSlots);
  if (slot != 0 || c >= channels) return;
  finish_moments(mine[0], c, running, save_mean, save_invstd);
}

// y = silu(z).
template <class T, int V>
__global__ void __launch_bounds__(kThreads) forward_apply_kernel(Geometry g, const T* __restrict__ x, Affine a,
                                                               T* __restrict__ y) {
  const Walk w = walk<V>(g);
  if (!w.valid) return;
  ChannelAffine<V> k;
  k.read(a, w.channel);
  for (int64_t i = w.start; i < w.end; i += w.step) {
    float value[V];
    load<V>(x, i, value);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      value[v] = silu_of<T>(fmaf(k.scale[v], value[v], k.offset[v]));
    }
    store<V>(y, i, value);
  }
}

// ---- backward ----

// Per block and channel: the sums of g (the bias's gradient) and of g * xhat (the weight's).
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBackwardBlocksPerSm) grad_sums_kernel(Geometry g, const T* __restrict__ x,
                                                           const T* __restrict__ grad_y, Affine a,
                                                           float* __restrict__ partials) {
  __shared__ Sums cell[kThreads * V];
  const Walk w = walk<V>(g);
  Sums mine[V];
#pragma unroll
  for (int v = 0; v < V; ++v) mine[v] = {0.f, 0.f};
  if (w.valid) {
    ChannelAffine<V> k;
    k.read(a, w.channel);
    for (int64_t i = w.start; i < w.end; i += w.step) {
      float gi[V], xhat[V];
      activation_grad<T, V>(x, grad_y, i, k, gi, xhat);
#pragma unroll
      for (int v = 0; v < V; ++v) {
        mine[v].g += gi[v];
        mine[v].gx += gi[v] * xhat[v];
      }
    }
  }
  block_total<V>(cell, mine, g.lanes, kThreads / g.lanes);
  put_all<V>(partials, g, w, mine);
}

// Per channel: the partial sums added in a fixed order; they are the bias's and the weight's
// gradients.
__global__ void finalize_sums_kernel(int64_t channels, int64_t partials, const float* __restrict__ ws,
                                     float* __restrict__ grad_weight, float* __restrict__ grad_bias) {
  __shared__ Sums cell[kFinalThreads];
  const int lane = threadIdx.x % kFinalLanes, slot = threadIdx.x / kFinalLanes;
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kFinalLanes + lane;
  Sums mine[1] = {{0.f, 0.f}};
  if (c < channels) {
    for (int64_t p = slot; p < partials; p += kFinalSlots) {
      Sums part;
      get(ws, partials, channels, p, c, part);
      mine[0] = combine(mine[0], part);
    }
  }
  block_total<1>(cell, mine, kFinalLanes, kFinalSlots);
  if (slot != 0 || c >= channels) return;
  grad_bias[c] = mine[0].g;
  grad_weight[c] = mine[0].gx;
}

// grad_x = weight * invstd * (g - mean(g) - xhat * mean(g * xhat)): BatchNorm's training
// backward with the batch's statistics, g the gradient through silu.
template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBackwardBlocksPerSm) backward_apply_kernel(Geometry g, const T* __restrict__ x,
                                                                const T* __restrict__ grad_y, Affine a,
                                                                const float* __restrict__ grad_weight,
                                                                const float* __restrict__ grad_bias, float inv_count,
                                                                T* __restrict__ grad_x) {
  const Walk w = walk<V>(g);
  if (!w.valid) return;
  ChannelAffine<V> k;
  k.read(a, w.channel);
  float mean_g[V], mean_gx[V];
  channel_values<V>(grad_bias, w.channel, mean_g);
  channel_values<V>(grad_weight, w.channel, mean_gx);
#pragma unroll
  for (int v = 0; v < V; ++v) mean_g[v] *= inv_count, mean_gx[v] *= inv_count;
  for (int64_t i = w.start; i < w.end; i += w.step) {
    float gi[V], xhat[V];
    activation_grad<T, V>(x, grad_y, i, k, gi, xhat);
#pragma unroll
    for (int v = 0; v < V; ++v) gi[v] = input_grad(k.scale[v], gi[v], xhat[v], mean_g[v], mean_gx[v]);
    store<V>(grad_x, i, gi);
  }
}

// ---- launches ----

// The blocks of the heaviest pass (the backward's sums) the device keeps resident at once, read
// once per process and kernel variant: a grid of one such wave has no tail of half-empty SMs.
template <class T, int V>
int64_t resident_blocks() {
  static const int64_t blocks = [] {
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grad_sums_kernel<T, V>, kThreads, 0) != cudaSuccess ||
        sms <= 0 || per_sm <= 0) {
      cudaGetLastError();  // leave no error behind for the next launch's check
      return kFallbackBlocks;
    }
    return static_cast<int64_t>(sms) * per_sm;
  }();
  return blocks;
}

Geometry geometry(const BnSiluShape& s) {
  const int v = vector_for(s);
  if (s.half) return geometry_in(s, v > 1 ? resident_blocks<__half, kMaxVector>() : resident_blocks<__half, 1>());
  return geometry_in(s, v > 1 ? resident_blocks<float, vector_of<float>()>() : resident_blocks<float, 1>());
}


bool launchable(const BnSiluShape& s, const Geometry& g) {
  return s.batch > 0 && s.channels > 0 && g.plane > 0 && g.tiles <= kMaxGridY && g.partials <= 0x7fffffff;
}

unsigned final_blocks(int64_t channels) { return static_cast<unsigned>(ceil_div(channels, kFinalLanes)); }

template <class T, int V>
int forward_with(const Geometry& g, const BnSiluForwardArgs& a, cudaStream_t stream) {
  const T* x = static_cast<const T*>(a.x);
  moments_kernel<T, V><<<grid_of(g), kThreads, 0, stream>>>(g, x, a.workspace);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  finalize_moments_kernel<<<final_blocks(g.channels), kFinalThreads, 0, stream>>>(
      g.channels, g.partials, a.workspace, Running{a.running_mean, a.running_var, a.momentum, a.eps}, a.save_mean,
      a.save_invstd);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  forward_apply_kernel<T, V><<<grid_of(g), kThreads, 0, stream>>>(
      g, x, Affine{a.save_mean, a.save_invstd, a.weight, a.bias}, static_cast<T*>(a.y));
  return static_cast<int>(cudaGetLastError());
}

template <class T, int V>
int backward_with(const Geometry& g, const BnSiluBackwardArgs& a, cudaStream_t stream) {
  const T* x = static_cast<const T*>(a.x);
  const T* grad_y = static_cast<const T*>(a.grad_y);
  const Affine affine{a.save_mean, a.save_invstd, a.weight, a.bias};
  grad_sums_kernel<T, V><<<grid_of(g), kThreads, 0, stream>>>(g, x, grad_y, affine, a.workspace);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  finalize_sums_kernel<<<final_blocks(g.channels), kFinalThreads, 0, stream>>>(g.channels, g.partials, a.workspace,
                                                                              a.grad_weight, a.grad_bias);
  if (const auto e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  const float inv_count = static_cast<float>(1.0 / static_cast<double>(g.rows));
  backward_apply_kernel<T, V><<<grid_of(g), kThreads, 0, stream>>>(g, x, grad_y, affine, a.grad_weight, a.grad_bias,
                                                                   inv_count, static_cast<T*>(a.grad_x));
  return static_cast<int>(cudaGetLastError());
}

// The one place the element type and the access width become template arguments.
template <class Args, class Launch>
int dispatch(const BnSiluShape& shape, const Args& args, void* stream, Launch launch) {
  const Geometry g = geometry(shape);
  if (!launchable(shape, g)) return static_cast<int>(cudaErrorInvalidValue);
  return launch(g, args, static_cast<cudaStream_t>(stream));
}

}  // namespace

int64_t bn_silu_forward_workspace(const BnSiluShape& shape) { return 3 * geometry(shape).partials * shape.channels; }

int64_t bn_silu_backward_workspace(const BnSiluShape& shape) { return 2 * geometry(shape).partials * shape.channels; }

int bn_silu_forward(const BnSiluShape& shape, const BnSiluForwardArgs& args, void* stream) {
  return dispatch(shape, args, stream, [&](const Geometry& g, const BnSiluForwardArgs& a, cudaStream_t s) {
    if (shape.half) return g.vector > 1 ? forward_with<__half, kMaxVector>(g, a, s) : forward_with<__half, 1>(g, a, s);
    return g.vector > 1 ? forward_with<float, vector_of<float>()>(g, a, s) : forward_with<float, 1>(g, a, s);
  });
}

int bn_silu_backward(const BnSiluShape& shape, const BnSiluBackwardArgs& args, void* stream) {
  return dispatch(shape, args, stream, [&](const Geometry& g, const BnSiluBackwardArgs& a, cudaStream_t s) {
    if (shape.half)
      return g.vector > 1 ? backward_with<__half, kMaxVector>(g, a, s) : backward_with<__half, 1>(g, a, s);
    return g.vector > 1 ? backward_with<float, vector_of<float>()>(g, a, s) : backward_with<float, 1>(g, a, s);
  });
}

const char* bn_silu_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
