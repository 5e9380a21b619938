#include "libreyolo/sdk/detr/detr_losses.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/detr/box_ops.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"

namespace libreyolo::sdk::detr {
namespace {

namespace F = torch::nn::functional;

void check_same_shape(const torch::Tensor& a, const torch::Tensor& b, const char* function, const char* what) {
  TORCH_CHECK(a.sizes() == b.sizes(), function, ": ", what, " must have the logits' shape ", a.sizes(), ", got ",
              b.sizes());
}

}  // namespace

torch::Tensor varifocal_loss(const torch::Tensor& logits_in, const torch::Tensor& target_score_in,
                             const torch::Tensor& one_hot_in, double alpha, double gamma) {
  check_same_shape(logits_in, target_score_in, "varifocal_loss", "target_score");
  check_same_shape(logits_in, one_hot_in, "varifocal_loss", "one_hot");
  const auto logits = logits_in.to(torch::kFloat32);
  const auto target_score = target_score_in.to(torch::kFloat32).detach();
  const auto one_hot = one_hot_in.to(torch::kFloat32);
  // The weight is a constant of the loss: the prediction's own confidence only scales negatives.
  const auto prediction = torch::sigmoid(logits).detach();
  const auto weight = alpha * prediction.pow(gamma) * (1.0 - one_hot) + target_score;
  return F::binary_cross_entropy_with_logits(
      logits, target_score, F::BinaryCrossEntropyWithLogitsFuncOptions().weight(weight).reduction(torch::kNone));
}

torch::Tensor sigmoid_focal_loss(const torch::Tensor& logits_in, const torch::Tensor& targets_in, double alpha,
                                 double gamma) {
  check_same_shape(logits_in, targets_in, "sigmoid_focal_loss", "targets");
  const auto logits = logits_in.to(torch::kFloat32);
  const auto targets = targets_in.to(torch::kFloat32);
  const auto p = torch::sigmoid(logits);
  const auto ce = F::binary_cross_entropy_with_logits(
      logits, targets, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(torch::kNone));
  const auto p_t = p * targets + (1.0 - p) * (1.0 - targets);
  auto loss = ce * (1.0 - p_t).pow(gamma);
  if (alpha >= 0) loss = (alpha * targets + (1.0 - alpha) * (1.0 - targets)) * loss;
  return loss;
}

torch::Tensor focal_matching_cost(const torch::Tensor& logits, const torch::Tensor& gt_labels, double alpha,
                                  double gamma) {
  TORCH_CHECK(logits.dim() >= 2 && gt_labels.dim() == logits.dim() - 1,
              "focal_matching_cost: logits must be [..., Q, C] and gt_labels [..., M] with the same leading "
              "dimensions, got ",
              logits.sizes(), " and ", gt_labels.sizes());
  TORCH_CHECK(logits.sizes().slice(0, logits.dim() - 2) == gt_labels.sizes().slice(0, gt_labels.dim() - 1),
              "focal_matching_cost: leading dimensions of logits ", logits.sizes(), " and gt_labels ",
              gt_labels.sizes(), " differ");
  TORCH_CHECK(!gt_labels.is_floating_point(), "focal_matching_cost: gt_labels must hold integer class indices (",
              gt_labels.scalar_type(), " given): convert with .to(torch::kLong)");
  const auto classes = logits.size(-1), queries = logits.size(-2);
  auto index_shape = gt_labels.sizes().vec();
  index_shape.insert(index_shape.end() - 1, queries);  // [..., Q, M]
  const auto index = gt_labels.to(torch::kLong).clamp(0, classes - 1).unsqueeze(-2).expand(index_shape);
  const auto p = torch::sigmoid(logits.to(torch::kFloat32)).gather(-1, index);
  // LibreYOLO's association order, so the costs agree to the last bit or two.
  const auto negative = (1.0 - alpha) * p.pow(gamma) * (-(1.0 - p + 1e-8).log());
  const auto positive = alpha * (1.0 - p).pow(gamma) * (-(p + 1e-8).log());
  return positive - negative;
}

torch::Tensor detr_matching_cost(const torch::Tensor& logits, const torch::Tensor& boxes_in,
                                 const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes_in, double w_class,
                                 double w_bbox, double w_giou) {
  TORCH_CHECK(logits.dim() == 3 && boxes_in.dim() == 3 && boxes_in.size(2) == 4 &&
                  boxes_in.sizes().slice(0, 2) == logits.sizes().slice(0, 2),
              "detr_matching_cost: logits must be [B, Q, C] and boxes [B, Q, 4], got ", logits.sizes(), " and ",
              boxes_in.sizes());
  TORCH_CHECK(gt_boxes_in.dim() == 3 && gt_boxes_in.size(2) == 4 && gt_labels.dim() == 2 &&
                  gt_boxes_in.sizes().slice(0, 2) == gt_labels.sizes() && gt_labels.size(0) == logits.size(0),
              "detr_matching_cost: gt_labels must be [B, M] and gt_boxes [B, M, 4] with the predictions' B = ",
              logits.size(0), ", got ", gt_labels.sizes(), " and ", gt_boxes_in.sizes());
  torch::NoGradGuard no_grad;
  const auto boxes = boxes_in.to(torch::kFloat32), gt_boxes = gt_boxes_in.to(torch::kFloat32);
  const auto l1 = (boxes.unsqueeze(2) - gt_boxes.unsqueeze(1)).abs().sum(-1);
  const auto giou = pairwise_generalized_box_iou(losses::xywh_to_xyxy(boxes), losses::xywh_to_xyxy(gt_boxes));
  return w_bbox * l1 + w_class * focal_matching_cost(logits, gt_labels) + w_giou * (-giou);
}

}  // namespace libreyolo::sdk::detr
