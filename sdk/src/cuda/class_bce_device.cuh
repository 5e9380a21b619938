#pragma once
// The fused classification loss's per-anchor work (class_bce_kernels.cu launches it), written once
// for the device and the host, so that a unit test runs it on the CPU against the composed ops and
// their autograd (tests/unit/sdk/test_class_bce.cpp).
//
// PyTorch's binary_cross_entropy_with_logits is (1 - t) x - log_sigmoid(x), with
// log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|)); its gradient in x is sigmoid(x) - t. The same
// formulas here, summed over one anchor's classes in order: equal to the composed ops within float32
// rounding (their sum groups the additions differently), not bit for bit.
#include <cmath>
#include <cstdint>

#include "class_bce_kernels.hpp"
#include "host_device.cuh"

namespace libreyolo::sdk::fused::cbce {

LIBREYOLO_HOST_DEVICE inline int64_t offset(const int64_t (&stride)[3], int64_t b, int64_t a, int64_t c) {
  return b * stride[0] + a * stride[1] + c * stride[2];
}

LIBREYOLO_HOST_DEVICE inline float log_sigmoid(float x) { return fminf(x, 0.f) - log1pf(expf(-fabsf(x))); }

LIBREYOLO_HOST_DEVICE inline float sigmoid(float x) {
  const float z = expf(-fabsf(x));  // never overflows
  return x >= 0.f ? 1.f / (1.f + z) : z / (1.f + z);
}

// The anchor's target on class c: its quality on the assigned class, else 0.
LIBREYOLO_HOST_DEVICE inline float target_of(const ClassBceBuffers& in, int64_t row, int64_t c) {
  return in.labels[row] == c ? in.quality[row] : 0.f;
}

LIBREYOLO_HOST_DEVICE inline bool counts(const ClassBceBuffers& in, int64_t row) {
  return in.rows == nullptr || in.rows[row];
}

LIBREYOLO_HOST_DEVICE inline void forward_row(const ClassBceShape& s, const ClassBceBuffers& in, float* row_sums,
                                              int64_t row) {
  const int64_t b = row / s.anchors, a = row % s.anchors;
  float sum = 0.f;
  if (counts(in, row)) {
    for (int64_t c = 0; c < s.classes; ++c) {
      const float x = in.logits[offset(s.logit_stride, b, a, c)];
      sum += (1.f - target_of(in, row, c)) * x - log_sigmoid(x);
    }
  }
  row_sums[row] = sum;
}

LIBREYOLO_HOST_DEVICE inline void backward_row(const ClassBceShape& s, const ClassBceBuffers& in,
                                               const float* upstream, float* grad, int64_t row) {
  const int64_t b = row / s.anchors, a = row % s.anchors;
  const bool on = counts(in, row);
  const float g = upstream[0];
  for (int64_t c = 0; c < s.classes; ++c) {
    const float x = in.logits[offset(s.logit_stride, b, a, c)];
    grad[offset(s.grad_stride, b, a, c)] = on ? (sigmoid(x) - target_of(in, row, c)) * g : 0.f;
  }
}

}  // namespace libreyolo::sdk::fused::cbce
