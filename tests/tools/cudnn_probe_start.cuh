#pragma once
// The cuDNN probes' shared start (cudnn_conv_fusion_probe.cu, small_conv_probe.cu): stdout line
// buffered (lines reach the file even if the call's timeout ends the probe), a cuDNN handle, and
// one line naming cuDNN's version and the GPU. False (said on stdout) without a GPU or cuDNN.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>

// A cuDNN call that must succeed: its status said and the probe ended otherwise.
#define CHECK_CUDNN_EXIT(x)                                                              \
  do {                                                                                   \
    cudnnStatus_t s_ = (x);                                                              \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                    \
      std::printf("cuDNN error %s at line %d\n", cudnnGetErrorString(s_), __LINE__);      \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

namespace probe {

inline bool start_cudnn(cudnnHandle_t& handle) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  cudaDeviceProp prop{};
  if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::printf("cudnnCreate failed: no GPU or no cuDNN here\n");
    return false;
  }
  std::printf("cuDNN %zu on %s (sm_%d%d)\n", cudnnGetVersion(), prop.name, prop.major, prop.minor);
  return true;
}

}  // namespace probe
