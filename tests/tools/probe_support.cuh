#pragma once
// What the stand-alone CUDA probes of tests/tools share (cudnn_conv_fusion_probe.cu,
// small_conv_probe.cu): a CUDA error check that ends the probe, a float16 device buffer read back
// as floats, and the largest difference of two results relative to the second's largest magnitude.
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

inline std::vector<float> host_copy(const __half* device, size_t count) {
  std::vector<__half> h(count);
  CHECK_CUDA(cudaMemcpy(h.data(), device, count * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> f(count);
  for (size_t i = 0; i < count; ++i) f[i] = __half2float(h[i]);
  return f;
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
