#include "libreyolo/sdk/detr/distribution_losses.hpp"

#include <torch/torch.h>

#include <vector>

namespace libreyolo::sdk::detr {
namespace {

// Index [N] broadcast to [..., N, 1] for a gather along the bins.
torch::Tensor bin_index(const torch::Tensor& bins, const torch::Tensor& logits) {
  auto shape = logits.sizes().vec();
  shape.back() = 1;
  return bins.unsqueeze(-1).expand(shape);
}

// Mean of x over the elements where mask holds, per leading index: x, mask [..., B, Q, 4] -> [...].
torch::Tensor masked_mean(const torch::Tensor& x, const torch::Tensor& mask) {
  const std::vector<int64_t> dims{-3, -2, -1};
  const auto zero = torch::zeros({}, x.options());
  const auto total = torch::where(mask, x, zero).sum(dims);
  return total / mask.sum(dims).clamp_min(1).to(x.scalar_type());
}

}  // namespace

torch::Tensor fine_grained_localization_loss(const torch::Tensor& edge_logits, const EdgeBins& bins) {
  TORCH_CHECK(edge_logits.dim() >= 2 && bins.bin.dim() == 1 && bins.bin.size(0) == edge_logits.size(-2),
              "fine_grained_localization_loss: edge_logits must be [..., N, reg_max + 1] and the bins [N], got ",
              edge_logits.sizes(), " and ", bins.bin.sizes());
  const int64_t reg_max = edge_logits.size(-1) - 1;
  const auto left = bins.bin.detach().nan_to_num(0.0).to(torch::kLong).clamp(0, reg_max - 1);
  const auto log_p = torch::log_softmax(edge_logits.to(torch::kFloat32), -1);
  const auto ce_left = -log_p.gather(-1, bin_index(left, log_p)).squeeze(-1);
  const auto ce_right = -log_p.gather(-1, bin_index(left + 1, log_p)).squeeze(-1);
  return ce_left * bins.weight_left.detach() + ce_right * bins.weight_right.detach();
}

torch::Tensor distillation_kl(const torch::Tensor& student_edge_logits, const torch::Tensor& teacher_edge_logits,
                              double temperature) {
  TORCH_CHECK(temperature > 0, "distillation_kl: the temperature must be positive, got ", temperature);
  TORCH_CHECK(student_edge_logits.size(-1) == teacher_edge_logits.size(-1),
              "distillation_kl: student and teacher must have the same bins, got ", student_edge_logits.sizes(),
              " and ", teacher_edge_logits.sizes());
  const auto log_student = torch::log_softmax(student_edge_logits.to(torch::kFloat32) / temperature, -1);
  // softmax then log, as kl_div receives the teacher's probabilities (not its log-probabilities).
  const auto teacher = torch::softmax(teacher_edge_logits.detach().to(torch::kFloat32) / temperature, -1);
  const auto pointwise = torch::where(teacher > 0, teacher * (teacher.log() - log_student),
                                      torch::zeros({}, log_student.options()));
  return (temperature * temperature) * pointwise.sum(-1);
}

DistillationBalance distillation_balance(const torch::Tensor& matched) {
  TORCH_CHECK(matched.dim() == 2 && matched.scalar_type() == torch::kBool,
              "distillation_balance: matched must be [B, Q] bool, got ", matched.sizes(), " ", matched.scalar_type());
  const double batch_scale = 8.0 / static_cast<double>(matched.size(0));
  const auto edges = 4.0 * matched.sum().to(torch::kFloat32);
  const auto all_edges = 4.0 * static_cast<double>(matched.numel());
  return {(edges * batch_scale).sqrt(), ((all_edges - edges) * batch_scale).sqrt()};
}

torch::Tensor distillation_weight(const torch::Tensor& teacher_logits, const torch::Tensor& matched,
                                  const torch::Tensor& matched_iou) {
  const auto confidence = std::get<0>(torch::sigmoid(teacher_logits.detach().to(torch::kFloat32)).max(-1));
  return torch::where(matched, matched_iou.detach().to(torch::kFloat32), confidence);
}

torch::Tensor decoupled_distillation_loss(const torch::Tensor& kl, const torch::Tensor& weight,
                                          const torch::Tensor& matched, const DistillationBalance& balance) {
  TORCH_CHECK(kl.dim() >= 3 && kl.size(-1) == 4 && weight.sizes() == kl.sizes().slice(0, kl.dim() - 1) &&
                  matched.sizes() == weight.sizes(),
              "decoupled_distillation_loss: kl must be [..., B, Q, 4], weight and matched [..., B, Q], got ",
              kl.sizes(), ", ", weight.sizes(), " and ", matched.sizes());
  const auto weighted = weight.detach().unsqueeze(-1) * kl;
  const auto edge_matched = matched.unsqueeze(-1).expand(kl.sizes());
  const auto matched_mean = masked_mean(weighted, edge_matched);
  const auto unmatched_mean = masked_mean(weighted, edge_matched.logical_not());
  return (matched_mean * balance.matched + unmatched_mean * balance.unmatched) /
         (balance.matched + balance.unmatched);
}

}  // namespace libreyolo::sdk::detr
