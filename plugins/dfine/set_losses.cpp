#include "set_losses.hpp"

#include <torch/torch.h>

#include "libreyolo/sdk/detr/fdr.hpp"
#include "matched_pairs.hpp"

namespace libreyolo::dfine {
namespace {

using sdk::detr::EdgeBins;

// FGL sums of the L decoder layers, [L]. The bins' targets depend only on the matches, which
// every layer shares, and on one reference (LibreYOLO computes them once per step and reuses
// them for every layer), so they are built once.
torch::Tensor fgl_sum(const SetStack& stack, const MatchedPairs& pairs, const LocalLossContext& context,
                      int64_t reg_max) {
  const int64_t layers = stack.corners.size(0);
  const auto mask = pairs.mask[0];  // [B, Q]
  // Unmatched queries take the unit stand-in that pairs.target holds for them as reference too.
  const auto reference =
      torch::where(mask.unsqueeze(-1), stack.reference.detach().to(torch::kFloat32), pairs.target[0]);
  const auto bins = sdk::detr::box_to_edge_bins(reference.reshape({-1, 4}), pairs.target_xyxy[0].reshape({-1, 4}),
                                                reg_max, context.reg_scale, context.up);
  const auto edge_logits = stack.corners.reshape({layers, -1, reg_max + 1});
  const auto per_edge = sdk::detr::fine_grained_localization_loss(edge_logits, bins).view({layers, mask.size(0),
                                                                                            mask.size(1), 4});
  const auto weighted = per_edge * pairs.iou.narrow(0, 0, layers).unsqueeze(-1);
  const auto zero = torch::zeros({}, weighted.options());
  return torch::where(mask.unsqueeze(-1), weighted, zero).sum({1, 2, 3});
}

// DDF of layers 0 .. L - 2 against layer L - 1, [L - 1].
torch::Tensor ddf_terms(const SetStack& stack, const MatchedPairs& pairs, const LocalLossContext& context,
                        const DfineLossSettings& settings) {
  const int64_t layers = stack.corners.size(0), students = layers - 1;
  if (students == 0) return torch::zeros({0}, stack.corners.options().dtype(torch::kFloat32));
  auto edges = stack.corners.sizes().vec();
  edges.back() = 4;
  edges.push_back(settings.reg_max + 1);  // [L, B, Q, 4, reg_max + 1]
  const auto corners = stack.corners.view(edges);
  const auto kl = sdk::detr::distillation_kl(corners.narrow(0, 0, students), corners.narrow(0, students, 1),
                                             settings.ddf_temperature);
  const auto mask = pairs.mask.narrow(0, 0, students);
  const auto weight = sdk::detr::distillation_weight(stack.logits[students], mask, pairs.iou.narrow(0, 0, students));
  return sdk::detr::decoupled_distillation_loss(kl, weight, mask, context.balance);
}

}  // namespace

StackLosses stack_losses(const SetStack& stack, const CriterionGroundTruth& gt, const LocalLossContext& context,
                         const DfineLossSettings& s) {
  const int64_t sets = stack.logits.size(0);
  const auto boxes = stack.boxes.to(torch::kFloat32);
  const auto class_pairs = pair_with_ground_truth(boxes, stack.class_matches, gt);
  const auto box_pairs = pair_with_ground_truth(boxes, stack.box_matches.unsqueeze(0).expand({sets, -1, -1}), gt);
  StackLosses out;
  out.vfl = varifocal_sum(stack.logits, class_pairs, s.vfl_alpha, s.vfl_gamma) * s.weight_vfl / stack.class_normaliser;
  out.bbox = l1_sum(box_pairs) * s.weight_bbox / stack.box_normaliser;
  out.giou = giou_loss_sum(box_pairs) * s.weight_giou / stack.box_normaliser;
  out.fgl = fgl_sum(stack, box_pairs, context, s.reg_max) * s.weight_fgl / stack.box_normaliser;
  out.ddf = ddf_terms(stack, box_pairs, context, s) * s.weight_ddf;
  return out;
}

}  // namespace libreyolo::dfine
