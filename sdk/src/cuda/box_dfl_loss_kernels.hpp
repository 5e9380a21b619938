#pragma once
// YOLOv9's box losses over every anchor in two launches (box_dfl_loss.hpp says what and why): a
// plain interface of raw pointers and a stream, no torch and no CUDA headers, like the other
// kernels' headers. All float32.

#include <cstdint>

namespace libreyolo::sdk::fused {

constexpr int kMostBoxBins = 32;  // reg_max: YOLOv9's is 16

struct BoxDflShape {
  int64_t batch = 0, anchors = 0;
  int bins = 0;                 // reg_max, 2 .. kMostBoxBins
  float max_distance = 0;       // the target distances' clamp (reg_max - 1.01), at most bins - 1.01
  float eps = 1e-7f;            // the CIoU's
  float four_over_pi_squared = 0;
  // Element strides of the logits [B, A, 4, bins] and of their gradient (the same order).
  int64_t logit_stride[4] = {0, 0, 0, 0};
  int64_t grad_stride[4] = {0, 0, 0, 0};
};

struct BoxDflBuffers {
  const float* logits = nullptr;   // [B, A, 4, bins], strided as logit_stride
  const float* points = nullptr;   // [A, 2] anchor points, contiguous (grid units)
  const float* targets = nullptr;  // [B, A, 4] target boxes x1 y1 x2 y2, contiguous (grid units)
  const float* weight = nullptr;   // [B, A], contiguous
};

// Per anchor: terms[2 * (b * A + a)] = (1 - CIoU) * weight, terms[... + 1] = the mean over the four
// sides of the interpolated cross-entropy (DFL) * weight. terms: [B * A * 2].
int box_dfl_forward(const BoxDflShape& shape, const BoxDflBuffers& in, float* terms, void* stream);
// d(upstream[0] * sum(box terms) + upstream[1] * sum(DFL terms)) / d logits, written to grad
// (strided as grad_stride). upstream: 2 floats on the device (read there: no host sync).
int box_dfl_backward(const BoxDflShape& shape, const BoxDflBuffers& in, const float* upstream, float* grad,
                     void* stream);
const char* box_dfl_error_text(int code);

}  // namespace libreyolo::sdk::fused
