// class_bce_sum: the classification loss as composed PyTorch ops, and the choice of the fused
// kernels (class_bce_fused.hpp) under the fused_kernels policy.
#include "libreyolo/sdk/losses/class_bce.hpp"

#include <torch/torch.h>

#include <mutex>

#include "../fused_choice_log.hpp"
#include "class_bce_fused.hpp"
#include "fused_input_checks.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk::losses {
namespace {

bool fused_chosen(const ClassBceInputs& in) {
  if (!fused_kernel_allowed("class_bce")) return false;
  const auto refusal = class_bce_refusal(in);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: the classification loss runs the fused CUDA kernels",
                         "fused_kernels: the classification loss runs PyTorch's ops");
  return refusal.empty();
}

// The criteria's former expressions: the whole BCE summed, or its counted rows.
torch::Tensor composed(const ClassBceInputs& in) {
  TORCH_CHECK(in.dense_target, "class_bce_sum: no dense target for the composed path");
  const auto target = in.dense_target();
  if (!in.rows.defined())
    return torch::binary_cross_entropy_with_logits(in.logits, target, {}, {}, at::Reduction::Sum);
  const auto bce = torch::binary_cross_entropy_with_logits(in.logits, target, {}, {}, at::Reduction::None);
  return torch::where(in.rows.unsqueeze(2), bce, torch::zeros({}, in.logits.options())).sum();
}

std::string shape_refusal(const ClassBceInputs& in) {
  if (in.logits.dim() != 3 || in.logits.numel() == 0) return "the logits are not a non-empty [B, A, C]";
  const int64_t batch = in.logits.size(0), anchors = in.logits.size(1);
  if (!same_shape(in.labels, {batch, anchors}) || !same_shape(in.quality, {batch, anchors}))
    return "the labels or qualities are not [B, A]";
  if (in.rows.defined() && !same_shape(in.rows, {batch, anchors})) return "the counted rows are not [B, A]";
  return "";
}

std::string type_refusal(const ClassBceInputs& in) {
  if (!all_float32({&in.logits, &in.quality})) return "the logits or qualities are not float32";
  if (in.labels.scalar_type() != torch::kInt64) return "the labels are not int64";
  if (in.rows.defined() && in.rows.scalar_type() != torch::kBool) return "the counted rows are not bool";
  return "";
}

}  // namespace

std::string class_bce_refusal(const ClassBceInputs& in) {
  if (auto unavailable = fused_class_bce_unavailable(); !unavailable.empty()) return unavailable;
  const bool on_device = all_on_one_cuda_device({&in.logits, &in.labels, &in.quality}) &&
                         (!in.rows.defined() || all_on_one_cuda_device({&in.logits, &in.rows}));
  if (!on_device) return "the inputs are not all on one CUDA device";
  if (auto why = type_refusal(in); !why.empty()) return why;
  return shape_refusal(in);
}

torch::Tensor class_bce_sum(const ClassBceInputs& in) {
  if (fused_chosen(in)) return fused_class_bce_sum(in);
  return composed(in);
}

}  // namespace libreyolo::sdk::losses
