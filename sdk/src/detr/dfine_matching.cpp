#include "libreyolo/sdk/detr/dfine_matching.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/detr/detr_losses.hpp"
#include "libreyolo/sdk/detr/dfine_box_ops.hpp"

namespace libreyolo::sdk::detr {

torch::Tensor dfine_matching_cost(const torch::Tensor& logits, const torch::Tensor& boxes_in,
                                  const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes_in,
                                  const DfineMatchingWeights& w) {
  TORCH_CHECK(logits.dim() == 3 && boxes_in.dim() == 3 && boxes_in.size(2) == 4 &&
                  boxes_in.sizes().slice(0, 2) == logits.sizes().slice(0, 2),
              "dfine_matching_cost: logits must be [B, Q, C] and boxes [B, Q, 4], got ", logits.sizes(), " and ",
              boxes_in.sizes());
  TORCH_CHECK(gt_boxes_in.dim() == 3 && gt_boxes_in.size(2) == 4 && gt_labels.dim() == 2 &&
                  gt_boxes_in.sizes().slice(0, 2) == gt_labels.sizes() && gt_labels.size(0) == logits.size(0),
              "dfine_matching_cost: gt_labels must be [B, M] and gt_boxes [B, M, 4] with the predictions' B = ",
              logits.size(0), ", got ", gt_labels.sizes(), " and ", gt_boxes_in.sizes());
  torch::NoGradGuard no_grad;
  const auto boxes = boxes_in.to(torch::kFloat32), gt_boxes = gt_boxes_in.to(torch::kFloat32);
  const auto l1 = (boxes.unsqueeze(2) - gt_boxes.unsqueeze(1)).abs().sum(-1);
  const auto giou = dfine_pairwise_generalized_box_iou(dfine_xywh_to_xyxy(boxes), dfine_xywh_to_xyxy(gt_boxes));
  const auto cost = w.cost_bbox * l1 + w.cost_class * focal_matching_cost(logits, gt_labels, w.alpha, w.gamma) +
                    w.cost_giou * (-giou);
  return torch::nan_to_num(cost, 1.0);
}

torch::Tensor union_of_matches(const torch::Tensor& matched, int64_t max_gt) {
  TORCH_CHECK(matched.dim() == 3 && matched.scalar_type() == torch::kInt64,
              "union_of_matches: matched must be [S, B, Q] int64, got ", matched.sizes(), " ", matched.scalar_type());
  TORCH_CHECK(max_gt >= 0, "union_of_matches: max_gt must be >= 0, got ", max_gt);
  const auto batch = matched.size(1), queries = matched.size(2);
  // votes[b, q, 1 + g]: how many sets matched query q to GT g; column 0 collects the -1s.
  const auto slots = (matched + 1).clamp(0, max_gt).permute({1, 2, 0});
  auto votes = torch::zeros({batch, queries, max_gt + 1}, matched.options());
  votes.scatter_add_(2, slots, torch::ones_like(slots));
  if (max_gt == 0) return torch::full({batch, queries}, -1, matched.options());
  const auto real = votes.narrow(2, 1, max_gt);
  // argmax keeps the first of equal maxima: the lowest GT index among the most frequent.
  const auto best = real.argmax(2);
  const auto any = real.amax(2) > 0;
  return torch::where(any, best, torch::full({}, -1, matched.options()));
}

}  // namespace libreyolo::sdk::detr
