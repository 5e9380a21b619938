#include "libreyolo/sdk/losses/quality_focal_loss.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::losses {

torch::Tensor quality_focal_loss(const torch::Tensor& logits_in, const torch::Tensor& labels_in,
                                 const torch::Tensor& scores_in, double beta) {
  TORCH_CHECK(logits_in.dim() >= 1 && logits_in.size(-1) > 0, "quality_focal_loss: logits must be [..., C], got ",
              logits_in.sizes());
  const auto prior_shape = logits_in.sizes().slice(0, logits_in.dim() - 1);
  TORCH_CHECK(labels_in.sizes() == prior_shape && scores_in.sizes() == prior_shape,
              "quality_focal_loss: labels and scores must be ", prior_shape,
              " (logits without the class dimension), got ", labels_in.sizes(), " and ", scores_in.sizes());
  const auto logits = logits_in.to(torch::kFloat32);
  const int64_t classes = logits.size(-1);
  const auto labels = labels_in.to(torch::kLong);
  const auto positive = (labels >= 0) & (labels < classes);
  // The soft target: one scatter of the score onto the labelled class (a clamped column with a
  // zero value for background), so positives and negatives share one formula. For t = 0 it is
  // the reference's negative term BCE(x, 0) * sigmoid(x)^beta; on the labelled class its
  // positive term BCE(x, s) * |s - sigmoid(x)|^beta.
  const auto scores = scores_in.to(torch::kFloat32);
  const auto target_value = torch::where(positive, scores, torch::zeros_like(scores));
  const auto target = torch::zeros_like(logits).scatter(-1, labels.clamp(0, classes - 1).unsqueeze(-1),
                                                        target_value.unsqueeze(-1));
  const auto modulation = (target - torch::sigmoid(logits)).abs().pow(beta);
  const auto bce = torch::binary_cross_entropy_with_logits(logits, target, {}, {}, at::Reduction::None);
  return (bce * modulation).sum(-1);
}

}  // namespace libreyolo::sdk::losses
