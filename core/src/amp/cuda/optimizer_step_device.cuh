#pragma once
// The optimizer step kernels' per-item code, compiled by nvcc for the device and by the host
// compiler for the unit tests, which run it on the CPU (tests/unit/amp/test_fused_optimizer_step.cpp).
//
// The arithmetic is each replaced PyTorch kernel's, operation for operation, so that a step gives
// the same bits: the unscale is a float32 multiply by the reciprocal of the scale worked out in
// double (GradScaler::unscale, _amp_foreach_non_finite_check_and_unscale_); SGD follows
// at::_fused_sgd_, whose four multiply-adds are each rounded once or twice as the LibTorch at hand
// was compiled (SgdRounding: measured on the device, optimizer_step_calibration.cpp, because
// PyTorch's source does not say what nvcc contracted); the float16 copy rounds to nearest
// even (Tensor::to); the EMA is three float32 roundings (ema * d, p * (1 - d), their sum: three
// foreach kernels); the scale update is _amp_update_scale_'s.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "optimizer_step_kernels.hpp"

#ifdef __CUDACC__
#include <cuda_fp16.h>
#define LIBREYOLO_STEP_HD __host__ __device__
#else
#define LIBREYOLO_STEP_HD
#endif

namespace libreyolo::core::amp::fused {

constexpr int kStepElementsPerBlock = 4096;  // a block's share of one slot
constexpr int kStepThreads = 256;

// A launch's slots, `first_block` numbering its blocks; Capacity is what the launch's parameter
// space holds (the kernels' own constant, or the tests').
template <int Capacity>
struct SlotBatch {
  std::int32_t count = 0;
  std::int32_t blocks = 0;
  OptimizerSlot slot[Capacity];
};

inline std::int32_t blocks_for(std::int32_t numel) {
  return numel <= 0 ? 1 : (numel + kStepElementsPerBlock - 1) / kStepElementsPerBlock;
}

// The next launch's slots, from `slots[start]` on; returns the index after the last one taken.
template <int Capacity>
int fill_batch(const OptimizerSlot* slots, int count, int start, SlotBatch<Capacity>& batch) {
  batch.count = 0;
  batch.blocks = 0;
  int i = start;
  for (; i < count && batch.count < Capacity; ++i) {
    OptimizerSlot slot = slots[i];
    slot.first_block = batch.blocks;
    batch.blocks += blocks_for(slot.numel);
    batch.slot[batch.count++] = slot;
  }
  return i;
}

// The slot block `block` works on: the last whose first block is not after it.
template <int Capacity>
LIBREYOLO_STEP_HD inline int slot_of_block(const SlotBatch<Capacity>& batch, int block) {
  int low = 0, high = batch.count - 1;
  while (low < high) {
    const int middle = (low + high + 1) / 2;
    if (batch.slot[middle].first_block <= block) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return low;
}

// float32 operations rounded one by one (nvcc would contract a multiply and an add into an FMA;
// the host compiler targets x86-64 without FMA instructions and does not).
#ifdef __CUDA_ARCH__
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline float half_to_float(std::uint16_t bits) { return __half2float(__ushort_as_half(bits)); }
__device__ inline std::uint16_t float_to_half(float x) { return __half_as_ushort(__float2half_rn(x)); }
#else
inline float mul_rn(float a, float b) { return a * b; }
inline float add_rn(float a, float b) { return a + b; }
float half_to_float(std::uint16_t bits);    // optimizer_step_host.cpp
std::uint16_t float_to_half(float x);       // round to nearest even, as the device does
#endif

LIBREYOLO_STEP_HD inline float gradient_at(const OptimizerSlot& slot, std::int64_t i) {
  return slot.grad_half ? half_to_float(static_cast<const std::uint16_t*>(slot.grad)[i])
                        : static_cast<const float*>(slot.grad)[i];
}

LIBREYOLO_STEP_HD inline bool finite(float x) { return x == x && x - x == 0.f; }

// a * b + c rounded once (`fused`) or twice.
LIBREYOLO_STEP_HD inline float multiply_add(bool fused, float a, float b, float c) {
#ifdef __CUDA_ARCH__
  return fused ? __fmaf_rn(a, b, c) : __fadd_rn(__fmul_rn(a, b), c);
#else
  return fused ? std::fma(a, b, c) : (a * b) + c;
#endif
}

// at::_fused_sgd_ on one element (dampening 0, is_first_step false, not maximising), `g` already
// unscaled, rounded as `rounding` says (SgdRounding).
LIBREYOLO_STEP_HD inline void sgd_element(float& p, float g, float& momentum_buffer, double weight_decay,
                                          double momentum, bool nesterov, double lr, std::int32_t rounding) {
  if (rounding & kDoubleScalars) {  // double scalars widen each expression; floats stored
    if (weight_decay != 0) g = static_cast<float>(g + weight_decay * p);
    const double buffer = momentum * static_cast<double>(momentum_buffer) + g;
    momentum_buffer = static_cast<float>(buffer);
    g = static_cast<float>(nesterov ? g + momentum * buffer : buffer);
    p = static_cast<float>(p - lr * g);
    return;
  }
  const auto wd = static_cast<float>(weight_decay), m = static_cast<float>(momentum), step = static_cast<float>(lr);
  if (wd != 0.f) g = multiply_add(rounding & kFusedDecay, wd, p, g);
  momentum_buffer = multiply_add(rounding & kFusedMomentum, m, momentum_buffer, g);  // (1 - 0) * g is g
  if (nesterov) {
    g = multiply_add(rounding & kFusedNesterov, m, momentum_buffer, g);
  } else {
    g = momentum_buffer;
  }
  p = multiply_add(rounding & kFusedStep, -step, g, p);  // p - lr * g: the negation is exact
}

// The reciprocal GradScaler::unscale multiplies by: worked out in double, rounded to float.
LIBREYOLO_STEP_HD inline float inverse_scale(float scale) {
  return static_cast<float>(1.0 / static_cast<double>(scale));
}

// Element i of a float32 slot: the unscaled SGD update unless `skip`, then the copy and the EMA.
LIBREYOLO_STEP_HD inline void update_element(const OptimizerSlot& slot, std::int64_t i, const StepScalars& s,
                                             float inv_scale, bool skip, float decay, float keep) {
  float* param = static_cast<float*>(slot.param);
  float p = param[i];
  if (slot.grad != nullptr && !skip) {
    const float g = mul_rn(gradient_at(slot, i), inv_scale);
    sgd_element(p, g, slot.momentum[i], s.weight_decay[slot.group], s.momentum, s.nesterov != 0,
                static_cast<double>(*s.lr[slot.group]), s.sgd_rounding);
    param[i] = p;
  }
  if (slot.copy != nullptr) slot.copy[i] = float_to_half(p);
  if (slot.average != nullptr) {
    float* average = static_cast<float*>(slot.average);
    average[i] = add_rn(mul_rn(average[i], decay), mul_rn(p, keep));
  }
}

LIBREYOLO_STEP_HD inline void copy_integer_element(const OptimizerSlot& slot, std::int64_t i) {
  static_cast<std::int64_t*>(slot.average)[i] = static_cast<const std::int64_t*>(slot.param)[i];
}

// After every update: the skip streak (skip_streak.add_(1).mul_(found_inf)), the scale's update
// (_amp_update_scale_) and found_inf cleared, as GradScaler::update leaves it.
LIBREYOLO_STEP_HD inline void finish_step(const StepScalars& s) {
  const float found = *s.found_inf;
  if (s.skip_streak != nullptr) *s.skip_streak = mul_rn(add_rn(*s.skip_streak, 1.f), found);
  if (found != 0.f) {
    *s.scale = static_cast<float>(*s.scale * s.backoff_factor);
    *s.growth_tracker = 0;
  } else {
    const std::int32_t successful = *s.growth_tracker + 1;
    if (successful == s.growth_interval) {
      const float grown = static_cast<float>(*s.scale * s.growth_factor);
      if (finite(grown)) *s.scale = grown;
      *s.growth_tracker = 0;
    } else {
      *s.growth_tracker = successful;
    }
  }
  *s.found_inf = 0.f;
}

}  // namespace libreyolo::core::amp::fused
