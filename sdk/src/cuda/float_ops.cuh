#pragma once
// float32 arithmetic rounded once per operation, as PyTorch's separate elementwise kernels round
// each result: on the device explicit _rn intrinsics (nvcc would otherwise contract a multiply and
// an add into one FMA); on the host plain operators (x86-64 without -mfma has no FMA to contract
// into). For the kernels' per-item code that unit tests also run on the CPU.
#include <cmath>

#include "host_device.cuh"

namespace libreyolo::sdk::fused::ops {

#ifdef __CUDA_ARCH__
__device__ inline float add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline float div(float a, float b) { return __fdiv_rn(a, b); }
#else
inline float add(float a, float b) { return a + b; }
inline float sub(float a, float b) { return a - b; }
inline float mul(float a, float b) { return a * b; }
inline float div(float a, float b) { return a / b; }
#endif

LIBREYOLO_HOST_DEVICE inline bool is_nan(float x) { return x != x; }
// torch::minimum / torch::maximum on floats: a NaN operand wins.
LIBREYOLO_HOST_DEVICE inline float minimum(float a, float b) { return a != a ? a : (b != b ? b : fminf(a, b)); }
LIBREYOLO_HOST_DEVICE inline float maximum(float a, float b) { return a != a ? a : (b != b ? b : fmaxf(a, b)); }

}  // namespace libreyolo::sdk::fused::ops
