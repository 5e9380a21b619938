// Fused BatchNorm (training statistics) + SiLU: the kernels and their launches. Each direction
// is three passes (batch_norm_silu_passes.cuh): per-block partial sums, their per-channel total,
// the elementwise pass. Where the grid fits on the device at once (the usual case: it is sized to
// one wave) the three run as one cooperative kernel with a grid-wide barrier between them, so a
// layer costs one launch a direction, as cuDNN's own BatchNorm does; else as three kernels. The
// totals are combined in a fixed order either way (no float atomics), and which way runs depends
// on the shape and the device alone, so results are bitwise the same run after run.
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "batch_norm_silu_passes.cuh"

namespace libreyolo::sdk::fused {
namespace {

namespace cg = cooperative_groups;

// A one-launch kernel's blocks finalise kFinalLanes channels at a time with all their threads.
constexpr int kOneLaunchSlots = kThreads / kFinalLanes;

// ---- three launches a direction ----

template <class T, int V>
__global__ void __launch_bounds__(kThreads) moments_kernel(Geometry g, const T* __restrict__ x, float* partials) {
  moments_pass<T, V>(g, x, partials);
}

__global__ void finalize_moments_kernel(int64_t channels, int64_t partials, const float* ws, Running running,
                                        float* save_mean, float* save_invstd) {
  finalize_moments<kFinalSlots>(channels, partials, ws, running, save_mean, save_invstd, blockIdx.x);
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads) forward_apply_kernel(Geometry g, const T* __restrict__ x, Affine a,
                                                               T* __restrict__ y) {
  forward_apply_pass<T, V>(g, x, a, y);
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBackwardBlocksPerSm)
    grad_sums_kernel(Geometry g, const T* __restrict__ x, const T* __restrict__ grad_y, Affine a, float* partials) {
  grad_sums_pass<T, V>(g, x, grad_y, a, partials);
}

__global__ void finalize_sums_kernel(int64_t channels, int64_t partials, const float* ws, float* grad_weight,
                                     float* grad_bias) {
  finalize_sums<kFinalSlots>(channels, partials, ws, grad_weight, grad_bias, blockIdx.x);
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBackwardBlocksPerSm)
    backward_apply_kernel(Geometry g, const T* __restrict__ x, const T* __restrict__ grad_y, Affine a,
                          const float* grad_weight, const float* grad_bias, float inv_count, T* __restrict__ grad_x) {
  backward_apply_pass<T, V>(g, x, grad_y, a, grad_weight, grad_bias, inv_count, grad_x);
}

// ---- one cooperative launch a direction ----

__device__ inline int64_t block_rank() { return static_cast<int64_t>(blockIdx.y) * gridDim.x + blockIdx.x; }
__device__ inline int64_t grid_blocks() { return static_cast<int64_t>(gridDim.x) * gridDim.y; }
__device__ inline int64_t channel_groups(int64_t channels) { return (channels + kFinalLanes - 1) / kFinalLanes; }

// The barrier makes every block's writes before it visible to every block after it; the values
// crossing it are read through L2 (channel_values, get).
template <class T, int V>
__global__ void __launch_bounds__(kThreads)
    forward_one_launch_kernel(Geometry g, const T* __restrict__ x, float* partials, Running running, float* save_mean,
                              float* save_invstd, const float* weight, const float* bias, T* __restrict__ y) {
  const cg::grid_group grid = cg::this_grid();
  moments_pass<T, V>(g, x, partials);
  grid.sync();
  for (int64_t group = block_rank(); group < channel_groups(g.channels); group += grid_blocks())
    finalize_moments<kOneLaunchSlots>(g.channels, g.partials, partials, running, save_mean, save_invstd, group);
  grid.sync();
  forward_apply_pass<T, V>(g, x, Affine{save_mean, save_invstd, weight, bias}, y);
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads, kBackwardBlocksPerSm)
    backward_one_launch_kernel(Geometry g, const T* __restrict__ x, const T* __restrict__ grad_y, Affine a,
                               float* partials, float* grad_weight, float* grad_bias, float inv_count,
                               T* __restrict__ grad_x) {
  const cg::grid_group grid = cg::this_grid();
  grad_sums_pass<T, V>(g, x, grad_y, a, partials);
  grid.sync();
  for (int64_t group = block_rank(); group < channel_groups(g.channels); group += grid_blocks())
    finalize_sums<kOneLaunchSlots>(g.channels, g.partials, partials, grad_weight, grad_bias, group);
  grid.sync();
  backward_apply_pass<T, V>(g, x, grad_y, a, grad_weight, grad_bias, inv_count, grad_x);
}

// ---- sizes ----

// Blocks of `kernel` the device holds at once; 0 where that cannot be read (or, with
// `cooperative`, where the device has no cooperative launches).
template <class Kernel>
int64_t blocks_at_once(Kernel kernel, bool cooperative) {
  int device = 0, sms = 0, per_sm = 0, supported = 1;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      (cooperative && cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device) != cudaSuccess) ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0) != cudaSuccess) {
    cudaGetLastError();  // leave no error behind for the next launch's check
    return 0;
  }
  return supported ? static_cast<int64_t>(sms) * per_sm : 0;
}

// Read once per process and kernel variant. `wave`: the heaviest pass's (the backward's sums)
// resident blocks, so that a grid of one wave has no tail of half-empty SMs; `one_launch`: the
// blocks both one-launch kernels can hold at once (0: never one launch).
struct Waves {
  int64_t wave, one_launch;
};

template <class T, int V>
const Waves& waves() {
  static const Waves w = [] {
    const int64_t resident = blocks_at_once(grad_sums_kernel<T, V>, false);
    const int64_t one = std::min(blocks_at_once(forward_one_launch_kernel<T, V>, true),
                                 blocks_at_once(backward_one_launch_kernel<T, V>, true));
    const int64_t wave = resident > 0 ? resident : kFallbackBlocks;
    return Waves{one > 0 ? std::min(wave, one) : wave, one};
  }();
  return w;
}

template <class T, int V>
Geometry geometry_for(const BnSiluShape& s) {
  const Waves& w = waves<T, V>();
  Geometry g = geometry_in(s, w.wave);
  g.one_launch = w.one_launch > 0 && g.partials * g.tiles <= w.one_launch;
  return g;
}

Geometry geometry(const BnSiluShape& s) {
  const int v = vector_for(s);
  if (s.half) return v > 1 ? geometry_for<__half, kMaxVector>(s) : geometry_for<__half, 1>(s);
  return v > 1 ? geometry_for<float, vector_of<float>()>(s) : geometry_for<float, 1>(s);
}

bool launchable(const BnSiluShape& s, const Geometry& g) {
  return s.batch > 0 && s.channels > 0 && g.plane > 0 && g.tiles <= kMaxGridY && g.partials <= 0x7fffffff;
}

unsigned final_blocks(int64_t channels) { return static_cast<unsigned>(ceil_div(channels, kFinalLanes)); }

// ---- launches ----

template <class T, int V>
int forward_one_launch(Geometry g, const BnSiluForwardArgs& a, cudaStream_t stream) {
  const T* x = static_cast<const T*>(a.x);
  float* partials = a.workspace;
  Running running{a.running_mean, a.running_var, a.momentum, a.eps};
  float* save_mean = a.save_mean;
  float* save_invstd = a.save_invstd;
  const float* weight = a.weight;
  const float* bias = a.bias;
  T* y = static_cast<T*>(a.y);
  void* args[] = {&g, &x, &partials, &running, &save_mean, &save_invstd, &weight, &bias, &y};
  return static_cast<int>(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&forward_one_launch_kernel<T, V>),
                                                      grid_of(g), dim3(kThreads), args, 0, stream));
}

template <class T, int V>
int backward_one_launch(Geometry g, const BnSiluBackwardArgs& a, cudaStream_t stream) {
  const T* x = static_cast<const T*>(a.x);
  const T* grad_y = static_cast<const T*>(a.grad_y);
  Affine affine{a.save_mean, a.save_invstd, a.weight, a.bias};
  float* partials = a.workspace;
  float* grad_weight = a.grad_weight;
  float* grad_bias = a.grad_bias;
  float inv_count = static_cast<float>(1.0 / static_cast<double>(g.rows));
  T* grad_x = static_cast<T*>(a.grad_x);
  void* args[] = {&g, &x, &grad_y, &affine, &partials, &grad_weight, &grad_bias, &inv_count, &grad_x};
  return static_cast<int>(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&backward_one_launch_kernel<T, V>),
                                                      grid_of(g), dim3(kThreads), args, 0, stream));
}

template <class T, int V>
int forward_with(const Geometry& g, const BnSiluForwardArgs& a, cudaStream_t stream) {
  if (g.one_launch) return forward_one_launch<T, V>(g, a, stream);
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
  if (g.one_launch) return backward_one_launch<T, V>(g, a, stream);
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
