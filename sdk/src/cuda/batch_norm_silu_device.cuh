#pragma once
// The fused BatchNorm + SiLU's per-element and per-channel device code, shared by its two kernel
// sets: the three-launch passes (batch_norm_silu_kernels.cu) and the one-launch cluster kernels
// (batch_norm_silu_cluster_kernels.cu). The arithmetic is the same in both; only how the sums
// travel between threads differs.
#include <cuda_fp16.h>
#include <cstdint>
#include <cuda_runtime.h>

#include "vector_access.cuh"

namespace libreyolo::sdk::fused::bn_silu {

// V per-channel float32 values from a [C] array.
template <int V>
__device__ inline void channel_values(const float* __restrict__ a, int64_t c, float (&out)[V]) {
#pragma unroll
  for (int v = 0; v < V; ++v) out[v] = a[c + v];
}

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

// A thread's moments from its sums of d = x - shift and of d * d over `count` elements: each
// thread sums deviations from its channel's first element (the shift), so that float32 keeps the
// digits of the variance however far the mean is from zero.
__device__ inline Moments shifted_moments(int64_t count, float shift, float sum, float squares) {
  if (count == 0) return {0.f, 0.f, 0.f};
  const float n = static_cast<float>(count), mean_d = sum / n;
  return {n, shift + mean_d, fmaxf(squares - sum * mean_d, 0.f)};
}

// A thread's running sums for shifted_moments over V channels.
template <int V>
struct ShiftedSums {
  float shift[V], sum[V], squares[V];
  int64_t count = 0;

  __device__ void clear() {
#pragma unroll
    for (int v = 0; v < V; ++v) shift[v] = sum[v] = squares[v] = 0.f;
  }
  // The shift: the channels' values at element `first` (any element of theirs will do).
  template <class T>
  __device__ void start(const T* __restrict__ x, int64_t first) {
    clear();
    load<V>(x, first, shift);
  }
  __device__ void add(const float (&value)[V]) {
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const float d = value[v] - shift[v];
      sum[v] += d;
      squares[v] += d * d;
    }
    ++count;
  }
  __device__ void moments(Moments (&out)[V]) const {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = shifted_moments(count, shift[v], sum[v], squares[v]);
  }
};

struct Sums {  // the backward's sum of g and of g * xhat, g = grad_y * silu'(z)
  float g, gx;
};

__device__ inline Sums combine(const Sums& a, const Sums& b) { return {a.g + b.g, a.gx + b.gx}; }

// exp for silu: the float16 path's result is rounded to 11 bits, so the fast intrinsic (2 ulp of
// float32) costs nothing there and keeps the pass memory-bound; float32 keeps the exact expf.
template <class T>
__device__ inline float silu_exp(float z) {
  if constexpr (sizeof(T) == 2) {
    return __expf(z);
  } else {
    return expf(z);
  }
}

// silu(z) = z * sigmoid(z).
template <class T>
__device__ inline float silu_of(float z) { return z / (1.f + silu_exp<T>(-z)); }

struct Running {
  float* mean;
  float* var;
  float momentum, eps;
};

// Channel c's totals: the saved mean and 1 / sqrt(var + eps) (biased variance, as BatchNorm
// normalises), and the running statistics moved towards the batch's as PyTorch does:
// running = momentum * batch + (1 - momentum) * running, with the unbiased variance (m2 / (n - 1)).
__device__ inline void finish_moments(const Moments& total, int64_t c, const Running& running,
                                      float* __restrict__ save_mean, float* __restrict__ save_invstd) {
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

// z = scale * x + offset is BatchNorm's weight * (x - mean) * invstd + bias with the per-channel
// products taken once.
template <int V>
struct ChannelAffine {
  float mean[V], invstd[V], scale[V], offset[V];

  __device__ void read(const Affine& a, int64_t c) {
    float weight[V], bias[V];
    channel_values<V>(a.mean, c, mean);
    channel_values<V>(a.invstd, c, invstd);
    channel_values<V>(a.weight, c, weight);
    channel_values<V>(a.bias, c, bias);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      scale[v] = weight[v] * invstd[v];
      offset[v] = bias[v] - mean[v] * scale[v];
    }
  }
};

// From x's values and grad_y's (in g): g = grad_y * silu'(z), silu'(z) = s * (1 + z * (1 - s))
// with s = sigmoid(z), z recomputed; and xhat, the normalised input.
template <class T, int V>
__device__ inline void activation_grad_of(const float (&value)[V], const ChannelAffine<V>& k, float (&g)[V],
                                          float (&xhat)[V]) {
#pragma unroll
  for (int v = 0; v < V; ++v) {
    xhat[v] = (value[v] - k.mean[v]) * k.invstd[v];
    const float z = fmaf(k.scale[v], value[v], k.offset[v]), s = 1.f / (1.f + silu_exp<T>(-z));
    g[v] *= s * (1.f + z * (1.f - s));
  }
}

// The same at element i, read from memory.
template <class T, int V>
__device__ inline void activation_grad(const T* __restrict__ x, const T* __restrict__ grad_y, int64_t i,
                                       const ChannelAffine<V>& k, float (&g)[V], float (&xhat)[V]) {
  float value[V];
  load<V>(x, i, value);
  load<V>(grad_y, i, g);
  activation_grad_of<T, V>(value, k, g, xhat);
}

// BatchNorm's training backward with the batch's statistics, g the gradient through silu:
// grad_x = weight * invstd * (g - mean(g) - xhat * mean(g * xhat)).
__device__ inline float input_grad(float scale, float g, float xhat, float mean_g, float mean_gx) {
  return scale * (g - mean_g - xhat * mean_gx);
}

}  // namespace libreyolo::sdk::fused::bn_silu
