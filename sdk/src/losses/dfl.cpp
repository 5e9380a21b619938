#include "libreyolo/sdk/losses/dfl.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::losses {

torch::Tensor dfl_decode(const torch::Tensor& logits) {
  const auto probabilities = torch::softmax(logits.to(torch::kFloat32), -1);
  const auto bins = torch::arange(logits.size(-1), probabilities.options());
  return (probabilities * bins).sum(-1);
}

torch::Tensor dfl_loss(const torch::Tensor& logits, const torch::Tensor& target) {
  const int64_t reg_max = logits.size(-1);
  const auto t = target.to(torch::kFloat32).clamp(0.0, static_cast<double>(reg_max) - 1.01);
  const auto left = t.floor();
  const auto weight_left = left + 1.0 - t;
  const auto weight_right = t - left;
  const auto log_p = torch::log_softmax(logits.to(torch::kFloat32), -1);
  const auto left_index = left.to(torch::kLong).unsqueeze(-1);
  const auto ce_left = -log_p.gather(-1, left_index).squeeze(-1);
  const auto ce_right = -log_p.gather(-1, left_index + 1).squeeze(-1);
  return ce_left * weight_left + ce_right * weight_right;
}

torch::Tensor bbox_to_distance(const torch::Tensor& anchor_points, const torch::Tensor& boxes,
                               double max_distance) {
  const auto lt = anchor_points - boxes.narrow(-1, 0, 2);
  const auto rb = boxes.narrow(-1, 2, 2) - anchor_points;
  return torch::cat({lt, rb}, -1).clamp(0.0, max_distance);
}

torch::Tensor distance_to_bbox(const torch::Tensor& distances, const torch::Tensor& anchor_points) {
  return torch::cat({anchor_points - distances.narrow(-1, 0, 2), anchor_points + distances.narrow(-1, 2, 2)}, -1);
}

}  // namespace libreyolo::sdk::losses
