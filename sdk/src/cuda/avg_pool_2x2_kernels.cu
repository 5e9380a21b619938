// The 2x2, stride-1 average pool, forward and backward. PyTorch's channels-last kernels for it
// spend about 100 and 150 us a call at YOLOv9-t's sizes on an H200 (about 20 times the time to
// move their bytes): here each thread reads or writes V consecutive channels of one position
// with 16-byte accesses where the channel count and the pointers allow (else one element), and
// the backward gathers each input position's (up to) four output gradients instead of
// scattering, so no thread writes another's element.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "avg_pool_2x2_kernels.hpp"
#include "launch_size.cuh"
#include "vector_access.cuh"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

// Where (n, c, h, w) sits for a tensor of `height` x `width` in the shape's layout, and the
// offsets of one row and one column down.
struct Layout {
  int64_t channels, height, width;
  bool channels_last;

  __device__ int64_t offset(int64_t n, int64_t c, int64_t h, int64_t w) const {
    return channels_last ? ((n * height + h) * width + w) * channels + c : ((n * channels + c) * height + h) * width + w;
  }
  __device__ int64_t row() const { return channels_last ? width * channels : width; }
  __device__ int64_t column() const { return channels_last ? channels : 1; }
};

// The position (n, c, h, w) of work item `i` over [N, C / V, H, W] in memory order, so that
// neighbouring threads touch neighbouring memory in either layout.
template <int V>
__device__ inline void position(int64_t i, const Layout& l, int64_t& n, int64_t& c, int64_t& h, int64_t& w) {
  const int64_t vectors = l.channels / V;
  if (l.channels_last) {
    c = (i % vectors) * V;
    i /= vectors;
    w = i % l.width;
    i /= l.width;
    h = i % l.height;
    n = i / l.height;
  } else {
    w = i % l.width;
    i /= l.width;
    h = i % l.height;
    i /= l.height;
    c = i % l.channels;
    n = i / l.channels;
  }
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads) forward_kernel(int64_t items, Layout in, Layout out,
                                                         const T* __restrict__ x, T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, c, h, w;
    position<V>(i, out, n, c, h, w);
    const int64_t base = in.offset(n, c, h, w);
    float a[V], b[V], d[V], e[V];
    load<V>(x, base, a);
    load<V>(x, base + in.column(), b);
    load<V>(x, base + in.row(), d);
    load<V>(x, base + in.row() + in.column(), e);
#pragma unroll
    for (int v = 0; v < V; ++v) a[v] = (((a[v] + b[v]) + d[v]) + e[v]) / 4.f;
    store<V>(y, out.offset(n, c, h, w), a);
  }
}

// The quotient g / 4 as PyTorch's backward forms it: c10::Half's division returns a Half, so
// for float16 each term is rounded to float16 before the float32 sum (exact, except where the
// quotient falls among float16's subnormals and loses its low bits); float32 keeps it.
__device__ inline float quarter_as(__half, float g) { return __half2float(__float2half_rn(g / 4.f)); }
__device__ inline float quarter_as(float, float g) { return g / 4.f; }

// grad_x[h, w] = the sum of grad_y / 4 over the windows that cover (h, w): outputs
// (h - 1 .. h) x (w - 1 .. w) that exist, in PyTorch's order and roundings.
template <class T, int V>
__global__ void __launch_bounds__(kThreads) backward_kernel(int64_t items, Layout in, Layout out,
                                                          const T* __restrict__ grad_y, T* __restrict__ grad_x) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, c, h, w;
    position<V>(i, in, n, c, h, w);
    float sum[V];
#pragma unroll
    for (int v = 0; v < V; ++v) sum[v] = 0.f;
    for (int64_t oh = h > 0 ? h - 1 : 0; oh <= h && oh < out.height; ++oh) {
      for (int64_t ow = w > 0 ? w - 1 : 0; ow <= w && ow < out.width; ++ow) {
        float g[V];
        load<V>(grad_y, out.offset(n, c, oh, ow), g);
#pragma unroll
        for (int v = 0; v < V; ++v) sum[v] += quarter_as(T{}, g[v]);
      }
    }
    store<V>(grad_x, in.offset(n, c, h, w), sum);
  }
}

Layout input_layout(const Pool2x2Shape& s) { return {s.channels, s.height, s.width, s.channels_last}; }
Layout output_layout(const Pool2x2Shape& s) { return {s.channels, s.height - 1, s.width - 1, s.channels_last}; }

int vector_for(const Pool2x2Shape& s) {
  const int v = s.half ? vector_of<__half>() : vector_of<float>();
  return s.channels_last && s.aligned16 && s.channels % v == 0 ? v : 1;
}

bool launchable(const Pool2x2Shape& s) { return s.batch > 0 && s.channels > 0 && s.height >= 2 && s.width >= 2; }

unsigned blocks_for(int64_t items) { return grid_stride_blocks(items, kThreads); }

// One launch; a work item is V channels of one output (forward) or input (backward) position.
template <class T, int V>
int forward_as(const Pool2x2Shape& s, const void* x, void* y, cudaStream_t stream) {
  const int64_t items = s.batch * (s.height - 1) * (s.width - 1) * (s.channels / V);
  forward_kernel<T, V><<<blocks_for(items), kThreads, 0, stream>>>(items, input_layout(s), output_layout(s),
                                                                   static_cast<const T*>(x), static_cast<T*>(y));
  return static_cast<int>(cudaGetLastError());
}

template <class T, int V>
int backward_as(const Pool2x2Shape& s, const void* grad_y, void* grad_x, cudaStream_t stream) {
  const int64_t items = s.batch * s.height * s.width * (s.channels / V);
  backward_kernel<T, V><<<blocks_for(items), kThreads, 0, stream>>>(
      items, input_layout(s), output_layout(s), static_cast<const T*>(grad_y), static_cast<T*>(grad_x));
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int avg_pool_2x2_forward(const Pool2x2Shape& s, const void* x, void* y, void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const auto st = static_cast<cudaStream_t>(stream);
  const bool wide = vector_for(s) > 1;
  if (s.half) return wide ? forward_as<__half, 8>(s, x, y, st) : forward_as<__half, 1>(s, x, y, st);
  return wide ? forward_as<float, 4>(s, x, y, st) : forward_as<float, 1>(s, x, y, st);
}

int avg_pool_2x2_backward(const Pool2x2Shape& s, const void* grad_y, void* grad_x, void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const auto st = static_cast<cudaStream_t>(stream);
  const bool wide = vector_for(s) > 1;
  if (s.half) return wide ? backward_as<__half, 8>(s, grad_y, grad_x, st) : backward_as<__half, 1>(s, grad_y, grad_x, st);
  return wide ? backward_as<float, 4>(s, grad_y, grad_x, st) : backward_as<float, 1>(s, grad_y, grad_x, st);
}

const char* avg_pool_2x2_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
