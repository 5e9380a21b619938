#pragma once
// What the stand-alone CUDA probes of tests/tools share (cudnn_conv_fusion_probe.cu,
// small_conv_probe.cu): a CUDA error check that ends the probe, a float16 device buffer read back
// as floats, sine-filled and zeroed device buffers, and the largest difference of two results relative to the second's largest magnitude.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                                 \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__);     \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace probe {

// count float16 values of scale * sin(...): the same data every run, no random generator.
__global__ inline void fill_sines(__half* p, size_t count, float scale, float offset) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    p[i] = __float2half(scale * __sinf(0.37f * float(i % 9973) + offset));
  }
}

// count zeroed values of T on the device, 256 bytes of slack after them.
template <class T>
T* zeroed(size_t count) {
  void* p = nullptr;
  CHECK_CUDA(cudaMalloc(&p, count * sizeof(T) + 256));
  CHECK_CUDA(cudaMemset(p, 0, count * sizeof(T) + 256));
  return static_cast<T*>(p);
}

inline std::vector<float> host_copy(const __half* device, size_t count) {
  std::vector<__half> h(count);
  CHECK_CUDA(cudaMemcpy(h.data(), device, count * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> f(count);
  for (size_t i = 0; i < count; ++i) f[i] = __half2float(h[i]);
  return f;
}

// Milliseconds for `replays` launches of `graph` on `stream`, after one launch that uploads it.
inline float replay_ms(cudaGraph_t graph, cudaStream_t stream, int replays) {
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < replays; ++i) CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  return ms;
}

inline double largest_relative(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, scale = 1e-12;
  for (size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::fabs(double(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  return diff / scale;
}

}  // namespace probe
