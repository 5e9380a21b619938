// The optimizer step kernels' passes on the host, for CPU tensors: the same per-item code
// (cuda/optimizer_step_device.cuh) over the same split into launches and blocks, so the unit
// tests exercise what the GPU runs. Also the float16 conversions the device does in hardware.
#include <cstring>

#include "cuda/optimizer_step_device.cuh"
#include "optimizer_step_launch.hpp"

namespace libreyolo::core::amp {
namespace fused {

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  float value;
  if (exponent == 0) {  // zero or subnormal: mantissa units of 2^-24, exact in float32
    value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -value : value;
  }
  const std::uint32_t out = exponent == 0x1fu ? (sign | 0x7f800000u | (mantissa << 13))
                                              : (sign | ((exponent + 112u) << 23) | (mantissa << 13));
  std::memcpy(&value, &out, sizeof value);
  return value;
}

namespace {

// `significand` (a float32's 24 bits with the implicit one) shifted right by `shift`, rounded to
// nearest, ties to even.
std::uint32_t shift_rounded(std::uint32_t significand, int shift) {
  if (shift > 31) return 0;
  const std::uint32_t kept = significand >> shift;
  const std::uint32_t rest = significand & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

}  // namespace

std::uint16_t float_to_half(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) return sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN, inf
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  if (exponent > 15) return sign | 0x7c00u;
  if (exponent >= -14) {  // a normal float16, unless rounding carries it to infinity (still right)
    const std::uint32_t rounded = shift_rounded(significand, 13) + (std::uint32_t(exponent + 14) << 10);
    return static_cast<std::uint16_t>(sign | rounded);
  }
  if (magnitude == 0) return sign;
  // Subnormal: units of 2^-24; the value is significand * 2^(exponent - 23).
  return static_cast<std::uint16_t>(sign | shift_rounded(significand, -exponent - 1));
}

}  // namespace fused

namespace {

constexpr int kHostSlotsPerBatch = 64;  // any capacity splits the same way; a small one tests the split
using HostBatch = fused::SlotBatch<kHostSlotsPerBatch>;

template <class Block>
void for_each_block(const std::vector<fused::OptimizerSlot>& slots, Block block) {
  HostBatch batch;
  for (int start = 0; start < static_cast<int>(slots.size());) {
    start = fused::fill_batch(slots.data(), static_cast<int>(slots.size()), start, batch);
    for (int b = 0; b < batch.blocks; ++b) {
      const auto& slot = batch.slot[fused::slot_of_block(batch, b)];
      const std::int64_t first = std::int64_t(b - slot.first_block) * fused::kStepElementsPerBlock;
      const std::int64_t end = std::min<std::int64_t>(first + fused::kStepElementsPerBlock, slot.numel);
      block(slot, first, end);
    }
  }
}

}  // namespace

void run_optimizer_step_on_host(const std::vector<fused::OptimizerSlot>& checked,
                                const std::vector<fused::OptimizerSlot>& all, const fused::StepScalars& s) {
  for_each_block(checked, [&](const fused::OptimizerSlot& slot, std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) {
      if (!fused::finite(fused::gradient_at(slot, i))) *s.found_inf = 1.f;
    }
  });
  const bool skip = *s.found_inf == 1.f;
  const float inv_scale = fused::inverse_scale(*s.scale);
  const float decay = s.decay != nullptr ? *s.decay : 0.f;
  const float keep = s.keep != nullptr ? *s.keep : 0.f;
  for_each_block(all, [&](const fused::OptimizerSlot& slot, std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) {
      if (slot.kind == fused::SlotKind::int64_copy) {
        fused::copy_integer_element(slot, i);
      } else {
        fused::update_element(slot, i, s, inv_scale, skip, decay, keep);
      }
    }
  });
  fused::finish_step(s);
}

}  // namespace libreyolo::core::amp
