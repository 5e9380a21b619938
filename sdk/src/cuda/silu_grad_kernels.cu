// silu_grad_kernels.hpp's one pass: every thread takes V consecutive channels of a row at a time
// (16-byte accesses where aligned), recomputes z from x with the channel's affine terms and
// writes grad_y * silu'(z). The per-channel terms come from four [C] float arrays that stay in L1.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "batch_norm_silu_device.cuh"
#include "launch_size.cuh"
#include "silu_grad_kernels.hpp"
#include "vector_access.cuh"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

template <class T, int V>
__global__ void __launch_bounds__(kThreads) silu_grad_kernel(int64_t elements, int64_t channels, SiluGradArgs a) {
  const bn_silu::Affine affine{a.mean, a.invstd, a.weight, a.bias};
  const auto* x = static_cast<const T*>(a.x);
  const auto* grad_y = static_cast<const T*>(a.grad_y);
  auto* g_out = static_cast<T*>(a.g);
  const int64_t vectors = elements / V;
  for (int64_t v = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; v < vectors; v += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = v * V;
    bn_silu::ChannelAffine<V> k;
    k.read(affine, i % channels);
    float g[V], xhat[V];
    bn_silu::activation_grad<T, V>(x, grad_y, i, k, g, xhat);
    store<V>(g_out, i, g);
  }
}

template <class T>
int launch(const SiluGradShape& s, const SiluGradArgs& a, cudaStream_t stream) {
  constexpr int kWide = vector_of<T>();
  const bool wide = s.aligned16 && s.channels % kWide == 0;
  const int64_t vectors = s.elements / (wide ? kWide : 1);
  const unsigned blocks = grid_stride_blocks(vectors, kThreads);
  if (wide)
    silu_grad_kernel<T, kWide><<<blocks, kThreads, 0, stream>>>(s.elements, s.channels, a);
  else
    silu_grad_kernel<T, 1><<<blocks, kThreads, 0, stream>>>(s.elements, s.channels, a);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int silu_grad_through_batch_norm(const SiluGradShape& shape, const SiluGradArgs& args, void* stream) {
  if (shape.elements == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  return shape.half ? launch<__half>(shape, args, s) : launch<float>(shape, args, s);
}

const char* silu_grad_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
