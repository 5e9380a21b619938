#pragma once
// Element access for the SDK's memory-bound CUDA kernels: V consecutive elements of a float16 or
// float32 tensor at p[i .. i + V), read and written as float. V = 16 bytes' worth (8 float16 or
// 4 float32) is one 16-byte load or store, which needs i * sizeof(T) and p 16-byte aligned; V = 1
// is the plain element access that any layout allows. A kernel that streams memory needs the
// wide accesses to keep enough bytes in flight to approach the HBM bandwidth.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace libreyolo::sdk::fused {

constexpr int kVectorBytes = 16;

// The elements of T one 16-byte access moves.
template <class T>
constexpr int vector_of() { return kVectorBytes / static_cast<int>(sizeof(T)); }

template <int V>
__device__ inline void load(const float* __restrict__ p, long long i, float (&out)[V]) {
  if constexpr (V == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p + i);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
  } else {
    static_assert(V == 1, "float32 is accessed one or four at a time");
    out[0] = p[i];
  }
}

template <int V>
__device__ inline void load(const __half* __restrict__ p, long long i, float (&out)[V]) {
  if constexpr (V == 8) {
    const uint4 q = *reinterpret_cast<const uint4*>(p + i);
    const __half2* h = reinterpret_cast<const __half2*>(&q);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = __half22float2(h[k]);
      out[2 * k] = f.x, out[2 * k + 1] = f.y;
    }
  } else {
    static_assert(V == 1, "float16 is accessed one or eight at a time");
    out[0] = __half2float(p[i]);
  }
}

template <int V>
__device__ inline void store(float* __restrict__ p, long long i, const float (&v)[V]) {
  if constexpr (V == 4) {
    *reinterpret_cast<float4*>(p + i) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    static_assert(V == 1, "float32 is accessed one or four at a time");
    p[i] = v[0];
  }
}

template <int V>
__device__ inline void store(__half* __restrict__ p, long long i, const float (&v)[V]) {
  if constexpr (V == 8) {
    uint4 q;
    __half2* h = reinterpret_cast<__half2*>(&q);
#pragma unroll
    for (int k = 0; k < 4; ++k) h[k] = __floats2half2_rn(v[2 * k], v[2 * k + 1]);
    *reinterpret_cast<uint4*>(p + i) = q;
  } else {
    static_assert(V == 1, "float16 is accessed one or eight at a time");
    p[i] = __float2half_rn(v[0]);
  }
}

}  // namespace libreyolo::sdk::fused
