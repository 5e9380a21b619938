#pragma once
// The AMP policy (docs/design.md#mixed-precision): from the user's amp/amp_dtype, the device and what the
// GPU supports, decide whether the forward runs under autocast, in which dtype, and whether a
// gradient scaler is live. Every fallback comes with one sentence for the log.

#include <torch/types.h>

#include <string>

namespace libreyolo::core::amp {

struct PrecisionPlan {
  bool autocast = false;
  torch::ScalarType dtype = torch::kFloat32;  // autocast dtype when autocast is on
  bool grad_scaler = false;                   // float16 only: bfloat16 has float32's range
  std::string note;                           // what was decided when it differs from the request
};

PrecisionPlan plan_precision(bool amp, const std::string& amp_dtype, const torch::Device& device,
                             bool bfloat16_supported);

// Autocast on for this scope (CUDA), restored and its cast cache cleared on exit.
class AutocastScope {
 public:
  explicit AutocastScope(const PrecisionPlan& plan);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  bool previous_enabled_ = false;
  torch::ScalarType previous_dtype_ = torch::kFloat16;
};

}  // namespace libreyolo::core::amp
