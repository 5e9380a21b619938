#pragma once
// The criteria's classification loss: binary cross-entropy with logits against a one-class target
// (each anchor's assigned class gets a quality, every other class 0), summed over the anchors that
// count (YOLOv9: all, background ones with an all-zero target; YOLOX: the foreground). Composed
// PyTorch ops on the caller's dense target unless the fused_kernels policy allows `class_bce`,
// whose kernels read the logits once each way and never build the dense target
// (docs/fused-kernels.md, "Classification loss"). The fused path equals the composed one within
// float32 rounding, not bit for bit (its sum groups the additions differently).

#include <torch/types.h>

#include <functional>
#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

struct ClassBceInputs {
  torch::Tensor logits;   // [B, A, C] float32, any strides
  torch::Tensor labels;   // [B, A] int64: the assigned class (any value where quality is 0)
  torch::Tensor quality;  // [B, A] float32: the assigned class's target
  torch::Tensor rows;     // [B, A] bool: the anchors that count; undefined: every anchor
  // The composed path's [B, A, C] target (the caller's own expression, so that composed stays the
  // criterion's former ops bit for bit); called only when the composed path runs.
  std::function<torch::Tensor()> dense_target;
};

// The summed loss, a scalar, differentiable in the logits.
LIBREYOLO_SDK_API torch::Tensor class_bce_sum(const ClassBceInputs& in);

// Why the fused kernels would not take `in`, whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string class_bce_refusal(const ClassBceInputs& in);

}  // namespace libreyolo::sdk::losses
