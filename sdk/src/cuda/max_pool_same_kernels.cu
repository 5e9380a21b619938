// The stride-1, same-padded max pool, forward and backward, channels-last. PyTorch's channels-last
// kernels for YOLOX-s's SPP (k = 5, 9, 13 at 20 x 20) took 1.44 ms of a training step on an H200
// (docs/benchmarks.md), about 20 times their bytes' time. Here each thread owns V consecutive
// channels of one position (16-byte accesses where C and the pointers allow, else one element):
// the forward scans the position's window, the backward gathers each input position's gradient
// from the outputs whose recorded maximum it is (no scatter, no atomics). Neighbouring threads'
// windows overlap, so most of a window's reads hit the L1 cache.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "max_pool_same_kernels.hpp"
#include "launch_size.cuh"
#include "vector_access.cuh"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

struct Geometry {
  int64_t channels, height, width;
  int kernel, pad;
};

// Work item i over [N, H, W, C / V] in memory order: its position and first channel.
template <int V>
__device__ inline void position(int64_t i, const Geometry& g, int64_t& n, int64_t& h, int64_t& w, int64_t& c) {
  const int64_t vectors = g.channels / V;
  c = (i % vectors) * V;
  i /= vectors;
  w = i % g.width;
  i /= g.width;
  h = i % g.height;
  n = i / g.height;
}

// V bytes of argmax at p[i]: one 8-, 4- or 1-byte access (i is a multiple of V).
template <int V>
__device__ inline void load_bytes(const uint8_t* __restrict__ p, int64_t i, uint8_t (&out)[V]) {
  if constexpr (V == 8) {
    const uint2 q = *reinterpret_cast<const uint2*>(p + i);
    const uint8_t* b = reinterpret_cast<const uint8_t*>(&q);
#pragma unroll
    for (int v = 0; v < 8; ++v) out[v] = b[v];
  } else if constexpr (V == 4) {
    const uint32_t q = *reinterpret_cast<const uint32_t*>(p + i);
#pragma unroll
    for (int v = 0; v < 4; ++v) out[v] = static_cast<uint8_t>(q >> (8 * v));
  } else {
    out[0] = p[i];
  }
}

template <int V>
__device__ inline void store_bytes(uint8_t* __restrict__ p, int64_t i, const uint8_t (&in)[V]) {
  if constexpr (V == 8) {
    uint2 q;
    uint8_t* b = reinterpret_cast<uint8_t*>(&q);
#pragma unroll
    for (int v = 0; v < 8; ++v) b[v] = in[v];
    *reinterpret_cast<uint2*>(p + i) = q;
  } else if constexpr (V == 4) {
    uint32_t q = 0;
#pragma unroll
    for (int v = 0; v < 4; ++v) q |= static_cast<uint32_t>(in[v]) << (8 * v);
    *reinterpret_cast<uint32_t*>(p + i) = q;
  } else {
    p[i] = in[0];
  }
}

// PyTorch's scan: rows top to bottom, each left to right, over the window's part inside the
// image; a value replaces the maximum when greater, or when it is NaN.
template <class T, int V>
__global__ void __launch_bounds__(kThreads) forward_kernel(int64_t items, Geometry g, const T* __restrict__ x,
                                                         T* __restrict__ y, uint8_t* __restrict__ argmax) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, oh, ow, c;
    position<V>(i, g, n, oh, ow, c);
    const int64_t h0 = oh - g.pad, w0 = ow - g.pad;
    const int64_t hs = h0 > 0 ? h0 : 0, ws = w0 > 0 ? w0 : 0;
    const int64_t he = h0 + g.kernel < g.height ? h0 + g.kernel : g.height;
    const int64_t we = w0 + g.kernel < g.width ? w0 + g.kernel : g.width;
    float best[V];
    uint8_t where[V];
#pragma unroll
    for (int v = 0; v < V; ++v) {
      best[v] = -INFINITY;  // a window of -inf keeps its first element, as PyTorch's does
      where[v] = static_cast<uint8_t>((hs - h0) * g.kernel + (ws - w0));
    }
    for (int64_t ih = hs; ih < he; ++ih) {
      for (int64_t iw = ws; iw < we; ++iw) {
        float value[V];
        load<V>(x, ((n * g.height + ih) * g.width + iw) * g.channels + c, value);
        const auto offset = static_cast<uint8_t>((ih - h0) * g.kernel + (iw - w0));
#pragma unroll
        for (int v = 0; v < V; ++v) {
          if (value[v] > best[v] || isnan(value[v])) {
            best[v] = value[v];
            where[v] = offset;
          }
        }
      }
    }
    store<V>(y, i * V, best);  // i * V: the output's own offset (C is a multiple of V)
    store_bytes<V>(argmax, i * V, where);
  }
}

// grad_x at (h, w) = the sum of grad_y over the outputs whose maximum it is, outputs taken in
// PyTorch's order (rows, then columns), in float32.
template <class T, int V>
__global__ void __launch_bounds__(kThreads) backward_kernel(int64_t items, Geometry g, const T* __restrict__ grad_y,
                                                          const uint8_t* __restrict__ argmax, T* __restrict__ grad_x) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < items;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, ih, iw, c;
    position<V>(i, g, n, ih, iw, c);
    const int64_t ohs = ih - g.pad > 0 ? ih - g.pad : 0, ows = iw - g.pad > 0 ? iw - g.pad : 0;
    const int64_t ohe = ih + g.pad + 1 < g.height ? ih + g.pad + 1 : g.height;
    const int64_t owe = iw + g.pad + 1 < g.width ? iw + g.pad + 1 : g.width;
    float sum[V];
#pragma unroll
    for (int v = 0; v < V; ++v) sum[v] = 0.f;
    for (int64_t oh = ohs; oh < ohe; ++oh) {
      for (int64_t ow = ows; ow < owe; ++ow) {
        const int64_t at = ((n * g.height + oh) * g.width + ow) * g.channels + c;
        uint8_t where[V];
        load_bytes<V>(argmax, at, where);
        const auto mine = static_cast<uint8_t>((ih - oh + g.pad) * g.kernel + (iw - ow + g.pad));
        bool any = false;
#pragma unroll
        for (int v = 0; v < V; ++v) any = any || where[v] == mine;
        if (!any) continue;
        float grad[V];
        load<V>(grad_y, at, grad);
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (where[v] == mine) sum[v] += grad[v];
      }
    }
    store<V>(grad_x, i * V, sum);
  }
}

Geometry geometry_of(const MaxPoolShape& s) { return {s.channels, s.height, s.width, s.kernel, s.kernel / 2}; }

int vector_for(const MaxPoolShape& s) {
  const int v = s.half ? vector_of<__half>() : vector_of<float>();
  return s.aligned16 && s.channels % v == 0 ? v : 1;
}

bool launchable(const MaxPoolShape& s) {
  return s.batch > 0 && s.channels > 0 && s.height > 0 && s.width > 0 && s.kernel >= 1 && s.kernel <= 15 &&
         s.kernel % 2 == 1;
}

unsigned blocks_for(int64_t items) { return grid_stride_blocks(items, kThreads); }

template <class T, int V>
int forward_as(const MaxPoolShape& s, const void* x, void* y, uint8_t* argmax, cudaStream_t stream) {
  const int64_t items = s.batch * s.height * s.width * (s.channels / V);
  forward_kernel<T, V><<<blocks_for(items), kThreads, 0, stream>>>(items, geometry_of(s), static_cast<const T*>(x),
                                                                   static_cast<T*>(y), argmax);
  return static_cast<int>(cudaGetLastError());
}

template <class T, int V>
int backward_as(const MaxPoolShape& s, const void* grad_y, const uint8_t* argmax, void* grad_x, cudaStream_t stream) {
  const int64_t items = s.batch * s.height * s.width * (s.channels / V);
  backward_kernel<T, V><<<blocks_for(items), kThreads, 0, stream>>>(items, geometry_of(s),
                                                                    static_cast<const T*>(grad_y), argmax,
                                                                    static_cast<T*>(grad_x));
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int max_pool_same_forward(const MaxPoolShape& s, const void* x, void* y, uint8_t* argmax, void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const auto st = static_cast<cudaStream_t>(stream);
  const bool wide = vector_for(s) > 1;
  if (s.half) return wide ? forward_as<__half, 8>(s, x, y, argmax, st) : forward_as<__half, 1>(s, x, y, argmax, st);
  return wide ? forward_as<float, 4>(s, x, y, argmax, st) : forward_as<float, 1>(s, x, y, argmax, st);
}

int max_pool_same_backward(const MaxPoolShape& s, const void* grad_y, const uint8_t* argmax, void* grad_x,
                           void* stream) {
  if (!launchable(s)) return static_cast<int>(cudaErrorInvalidValue);
  const auto st = static_cast<cudaStream_t>(stream);
  const bool wide = vector_for(s) > 1;
  if (s.half) {
    return wide ? backward_as<__half, 8>(s, grad_y, argmax, grad_x, st)
                : backward_as<__half, 1>(s, grad_y, argmax, grad_x, st);
  }
  return wide ? backward_as<float, 4>(s, grad_y, argmax, grad_x, st) : backward_as<float, 1>(s, grad_y, argmax, grad_x, st);
}

const char* max_pool_same_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
