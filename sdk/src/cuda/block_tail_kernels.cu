// The blocks' elementwise tails as one launch each. PyTorch runs silu(a + b) as an addition
// kernel and a SiLU kernel (the sum written, then read back), and silu(x) + r as a SiLU kernel
// and an addition kernel: at YOLOv9-t's activations each kernel is a few microseconds, mostly
// launch and latency. Here a thread reads V consecutive elements of each input with 16-byte
// accesses where the count and the pointers allow (else one element), and writes each result
// once. The float32 formulas are PyTorch's (ActivationSiluKernel.cu, the add functor with alpha
// 1): neither contains a multiply that nvcc could contract into an FMA differently, and every
// float16 result is rounded where PyTorch's separate kernels round it, so the bits are the same.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "block_tail_kernels.hpp"
#include "launch_size.cuh"
#include "vector_access.cuh"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

// A float32 value as the tensor's type holds it: float16 rounds to nearest even, as PyTorch's
// c10::Half conversion does; float32 keeps it.
__device__ inline float held_as(__half, float v) { return __half2float(__float2half_rn(v)); }
__device__ inline float held_as(float, float v) { return v; }

__device__ inline float silu(float x) { return x / (1.f + expf(-x)); }

template <class T, int V>
__global__ void __launch_bounds__(kThreads) add_silu_kernel(int64_t vectors, const T* __restrict__ a,
                                                          const T* __restrict__ b, T* __restrict__ sum,
                                                          T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float p[V], q[V];
    load<V>(a, i * V, p);
    load<V>(b, i * V, q);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      p[v] = held_as(T{}, p[v] + q[v]);  // the sum as the addition kernel stores it
      q[v] = silu(p[v]);
    }
    if (sum != nullptr) store<V>(sum, i * V, p);
    store<V>(y, i * V, q);
  }
}

template <class T, int V>
__global__ void __launch_bounds__(kThreads) silu_add_kernel(int64_t vectors, const T* __restrict__ x,
                                                          const T* __restrict__ residual, T* __restrict__ y) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < vectors;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float p[V], r[V];
    load<V>(x, i * V, p);
    load<V>(residual, i * V, r);
#pragma unroll
    for (int v = 0; v < V; ++v) p[v] = held_as(T{}, silu(p[v])) + r[v];  // silu as the SiLU kernel stores it
    store<V>(y, i * V, p);
  }
}

template <class T>
int wide_vector(const TailShape& s) {
  constexpr int v = vector_of<T>();
  return s.aligned16 && s.count % v == 0 ? v : 1;
}

template <class T, int V>
int add_silu_as(const TailShape& s, const void* a, const void* b, void* sum, void* y, cudaStream_t stream) {
  const int64_t vectors = s.count / V;
  add_silu_kernel<T, V><<<grid_stride_blocks(vectors, kThreads), kThreads, 0, stream>>>(
      vectors, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(sum), static_cast<T*>(y));
  return static_cast<int>(cudaGetLastError());
}

template <class T, int V>
int silu_add_as(const TailShape& s, const void* x, const void* residual, void* y, cudaStream_t stream) {
  const int64_t vectors = s.count / V;
  silu_add_kernel<T, V><<<grid_stride_blocks(vectors, kThreads), kThreads, 0, stream>>>(
      vectors, static_cast<const T*>(x), static_cast<const T*>(residual), static_cast<T*>(y));
  return static_cast<int>(cudaGetLastError());
}

template <class T>
int add_silu_typed(const TailShape& s, const void* a, const void* b, void* sum, void* y, cudaStream_t stream) {
  constexpr int v = vector_of<T>();
  return wide_vector<T>(s) > 1 ? add_silu_as<T, v>(s, a, b, sum, y, stream) : add_silu_as<T, 1>(s, a, b, sum, y, stream);
}

template <class T>
int silu_add_typed(const TailShape& s, const void* x, const void* residual, void* y, cudaStream_t stream) {
  constexpr int v = vector_of<T>();
  return wide_vector<T>(s) > 1 ? silu_add_as<T, v>(s, x, residual, y, stream) : silu_add_as<T, 1>(s, x, residual, y, stream);
}

}  // namespace

int add_silu_forward(const TailShape& s, const void* a, const void* b, void* sum, void* y, void* stream) {
  if (s.count <= 0) return static_cast<int>(cudaErrorInvalidValue);
  const auto st = static_cast<cudaStream_t>(stream);
  return s.half ? add_silu_typed<__half>(s, a, b, sum, y, st) : add_silu_typed<float>(s, a, b, sum, y, st);
}

int silu_add_forward(const TailShape& s, const void* x, const void* residual, void* y, void* stream) {
  if (s.count <= 0) return static_cast<int>(cudaErrorInvalidValue);
  const auto st = static_cast<cudaStream_t>(stream);
  return s.half ? silu_add_typed<__half>(s, x, residual, y, st) : silu_add_typed<float>(s, x, residual, y, st);
}

const char* block_tail_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
