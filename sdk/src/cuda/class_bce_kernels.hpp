#pragma once
// The criteria's classification loss, binary cross-entropy with logits against a one-class
// target (the assigned class gets a quality in [0, 1], every other class 0), summed, in one
// launch each way (class_bce.hpp says where and why): a plain interface of raw pointers and a
// stream, no torch and no CUDA headers. All float32 but the labels (int64) and the row mask (bool).

#include <cstdint>

namespace libreyolo::sdk::fused {

struct ClassBceShape {
  int64_t batch = 0, anchors = 0, classes = 0;
  int64_t logit_stride[3] = {0, 0, 0};  // element strides of the logits [B, A, C]
  int64_t grad_stride[3] = {0, 0, 0};   // and of their gradient
};

struct ClassBceBuffers {
  const float* logits = nullptr;
  const int64_t* labels = nullptr;  // [B, A] the assigned class (any value where quality is 0)
  const float* quality = nullptr;   // [B, A] the assigned class's target
  const bool* rows = nullptr;       // [B, A] which anchors count; null: all
};

// row_sums[b * A + a]: the sum over classes of BCE(logit, target) where the row counts, else 0.
int class_bce_forward(const ClassBceShape& shape, const ClassBceBuffers& in, float* row_sums, void* stream);
// grad = upstream[0] * (sigmoid(logit) - target) where the row counts, else 0. upstream: 1 float
// on the device (no host sync).
int class_bce_backward(const ClassBceShape& shape, const ClassBceBuffers& in, const float* upstream, float* grad,
                       void* stream);
const char* class_bce_error_text(int code);

}  // namespace libreyolo::sdk::fused
