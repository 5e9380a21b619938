#include "matched_pairs.hpp"

#include <torch/torch.h>

#include <vector>

#include "libreyolo/sdk/detr/detr_losses.hpp"
#include "libreyolo/sdk/detr/dfine_box_ops.hpp"

namespace libreyolo::dfine {
namespace {

const std::vector<int64_t> kSetDims{1, 2};  // images and queries

// x [B, M, ...] expanded over S sets and gathered at index [S, B, Q] along the GT dimension.
torch::Tensor gather_gt(const torch::Tensor& x, const torch::Tensor& index) {
  const int64_t sets = index.size(0);
  if (x.dim() == 2) return x.unsqueeze(0).expand({sets, -1, -1}).gather(2, index);
  const auto width = x.size(2);
  return x.unsqueeze(0).expand({sets, -1, -1, -1}).gather(2, index.unsqueeze(-1).expand({-1, -1, -1, width}));
}

// (0.5, 0.5, 1, 1), filled on the device (a copied CPU tensor would make the host wait for CUDA).
torch::Tensor unit_box(const torch::TensorOptions& options) {
  auto box = torch::full({4}, 0.5, options);
  box.narrow(0, 2, 2).fill_(1.0);
  return box;
}

}  // namespace

MatchedPairs pair_with_ground_truth(const torch::Tensor& boxes, const torch::Tensor& matched,
                                    const CriterionGroundTruth& gt) {
  MatchedPairs p;
  p.mask = matched >= 0;
  const auto index = matched.clamp_min(0);
  p.labels = gather_gt(gt.labels, index);
  const auto unit = unit_box(boxes.options().dtype(torch::kFloat32));
  const auto mask4 = p.mask.unsqueeze(-1);
  p.pred = torch::where(mask4, boxes.to(torch::kFloat32), unit);
  p.target = torch::where(mask4, gather_gt(gt.boxes, index), unit);
  p.pred_xyxy = sdk::detr::dfine_xywh_to_xyxy(p.pred);
  p.target_xyxy = sdk::detr::dfine_xywh_to_xyxy(p.target);
  const auto zero = torch::zeros({}, p.pred.options());
  p.iou = torch::where(p.mask, sdk::detr::dfine_box_iou(p.pred_xyxy.detach(), p.target_xyxy), zero);
  return p;
}

torch::Tensor varifocal_sum(const torch::Tensor& logits_in, const MatchedPairs& pairs, double alpha, double gamma) {
  const auto logits = logits_in.to(torch::kFloat32);
  // The true class of matched queries, nothing for the others (LibreYOLO's background column).
  const auto one_hot = torch::one_hot(pairs.labels, logits.size(-1)).to(torch::kFloat32) *
                       pairs.mask.unsqueeze(-1).to(torch::kFloat32);
  const auto target_score = one_hot * pairs.iou.unsqueeze(-1);
  return sdk::detr::varifocal_loss(logits, target_score, one_hot, alpha, gamma).sum({1, 2, 3});
}

torch::Tensor l1_sum(const MatchedPairs& pairs) {
  // Unmatched rows hold the unit box on both sides: their L1 is exactly 0.
  return (pairs.pred - pairs.target).abs().sum(-1).sum(kSetDims);
}

torch::Tensor giou_loss_sum(const MatchedPairs& pairs) {
  const auto zero = torch::zeros({}, pairs.pred.options());
  const auto giou = sdk::detr::dfine_generalized_box_iou(pairs.pred_xyxy, pairs.target_xyxy);
  return torch::where(pairs.mask, 1.0 - giou, zero).sum(kSetDims);
}

}  // namespace libreyolo::dfine
