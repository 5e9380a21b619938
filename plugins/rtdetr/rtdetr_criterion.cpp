#include "rtdetr_criterion.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

#include "decoder_outputs.hpp"
#include "libreyolo/sdk/detr/query_anchors.hpp"
#include "libreyolo/sdk/detr/batched_matching.hpp"
#include "libreyolo/sdk/detr/detr_losses.hpp"
#include "libreyolo/sdk/detr/box_ops.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"

namespace libreyolo::rtdetr {
namespace {

using Named = std::vector<std::pair<std::string, torch::Tensor>>;

struct GroundTruth {
  torch::Tensor labels;  // [B, M] int64
  torch::Tensor boxes;   // [B, M, 4] cx, cy, w, h normalised to the input
  std::vector<int64_t> counts;
  double num_boxes = 1;  // max(1, sum of counts)
};

GroundTruth ground_truth(const sdk::Targets& targets, int64_t height, int64_t width) {
  GroundTruth gt;
  const auto scale = sdk::detr::xywh_scale(height, width, targets.boxes.options().dtype(torch::kFloat32));
  gt.labels = targets.boxes.select(2, 0).to(torch::kInt64);
  gt.boxes = targets.boxes.narrow(2, 1, 4).to(torch::kFloat32) / scale;
  gt.counts = sdk::counts_on_host(targets);
  const auto total = std::accumulate(gt.counts.begin(), gt.counts.end(), int64_t{0});
  gt.num_boxes = static_cast<double>(std::max<int64_t>(1, total));
  return gt;
}

// [B, Q] rows of x [B, M, ...] picked by index [B, Q] (clamped: unmatched rows read row 0).
torch::Tensor gather_gt(const torch::Tensor& x, const torch::Tensor& index) {
  if (x.dim() == 2) return x.gather(1, index);
  return x.gather(1, index.unsqueeze(-1).expand({index.size(0), index.size(1), x.size(2)}));
}

}  // namespace

namespace {

// The three weighted terms of every set, [S] each.
struct SetTerms {
  torch::Tensor vfl, bbox, giou;
};

// VFL, L1 and GIoU of S prediction sets against their matches at once (LibreYOLO's
// loss_labels_vfl and loss_boxes, vectorised over sets and images: one pass of kernels for all
// of them instead of one per set): a query with matched[s, b, q] = g >= 0 is paired with GT g
// of image b. logits [S, B, Q, C], boxes [S, B, Q, 4], matched [S, B, Q].
SetTerms set_losses(const torch::Tensor& logits, const torch::Tensor& boxes, const torch::Tensor& matched,
                    const GroundTruth& gt, double normaliser, const RtdetrLossSettings& s) {
  const int64_t sets = matched.size(0);
  const auto matched_mask = matched >= 0;
  const auto index = matched.clamp_min(0).flatten(0, 1);  // [S * B, Q]
  const auto target_boxes = gather_gt(gt.boxes.repeat({sets, 1, 1}), index).view(boxes.sizes());
  const auto target_labels = gather_gt(gt.labels.repeat({sets, 1}), index).view(matched.sizes());
  const auto pred_xyxy = sdk::losses::xywh_to_xyxy(boxes);
  const auto target_xyxy = sdk::losses::xywh_to_xyxy(target_boxes);
  // LibreYOLO's box_iou (eps 1e-6 on the union) for the VFL target, its GIoU for the loss.
  const auto iou = sdk::losses::box_iou(pred_xyxy, target_xyxy, sdk::losses::IoUKind::iou, 1e-6);
  const auto giou = sdk::detr::generalized_box_iou(pred_xyxy, target_xyxy);
  const auto zero = torch::zeros({}, boxes.options());
  // where(), not a product: an unmatched row may hold a NaN (a padding GT of zero size).
  const auto l1 = torch::where(matched_mask, (boxes - target_boxes).abs().sum(-1), zero).sum({1, 2});
  const auto giou_loss = torch::where(matched_mask, 1.0 - giou, zero).sum({1, 2});
  const auto one_hot = torch::one_hot(target_labels, s.num_classes).to(logits.scalar_type()) *
                       matched_mask.unsqueeze(-1).to(logits.scalar_type());
  const auto target_score = one_hot * torch::where(matched_mask, iou, zero).detach().unsqueeze(-1);
  const auto vfl = sdk::detr::varifocal_loss(logits, target_score, one_hot, s.vfl_alpha, s.vfl_gamma).sum({1, 2, 3});
  return {vfl * (s.weight_vfl / normaliser), l1 * (s.weight_bbox / normaliser), giou_loss * (s.weight_giou / normaliser)};
}

void add_terms(Named& out, const SetTerms& terms, int64_t set, const std::string& suffix) {
  out.emplace_back("loss_vfl" + suffix, terms.vfl[set]);
  out.emplace_back("loss_bbox" + suffix, terms.bbox[set]);
  out.emplace_back("loss_giou" + suffix, terms.giou[set]);
}

// Matches every set ([S, B, Q, C] logits, [S, B, Q, 4] boxes) at once: one device-to-host copy.
torch::Tensor match_sets(const torch::Tensor& logits, const torch::Tensor& boxes, const GroundTruth& gt,
                         const RtdetrLossSettings& s) {
  torch::NoGradGuard no_grad;
  const int64_t sets = logits.size(0), batch = logits.size(1), queries = logits.size(2);
  const auto cost = sdk::detr::detr_matching_cost(logits.flatten(0, 1), boxes.flatten(0, 1), gt.labels.repeat({sets, 1}),
                                                  gt.boxes.repeat({sets, 1, 1}), s.cost_class, s.cost_bbox, s.cost_giou);
  std::vector<int64_t> counts;
  for (int64_t i = 0; i < sets; ++i) counts.insert(counts.end(), gt.counts.begin(), gt.counts.end());
  return sdk::detr::match_batched(cost, counts).view({sets, batch, queries});
}

}  // namespace

namespace {

struct MatchedSets {
  GroundTruth gt;
  torch::Tensor logits, boxes;  // [S, B, Q, C], [S, B, Q, 4]: the decoder layers, then the encoder selection
  torch::Tensor matched;        // [S, B, Q]
};

// The sets, in order: every decoder layer, then the encoder's top-Q selection.
MatchedSets matched_sets(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                         const RtdetrLossSettings& settings) {
  const auto size = outputs.at(outputs::input_size);  // a CPU tensor: reading it waits for nothing
  MatchedSets m;
  m.gt = ground_truth(targets, size[0].item<int64_t>(), size[1].item<int64_t>());
  m.logits = torch::cat({outputs.at(outputs::dec_logits).to(torch::kFloat32),
                         outputs.at(outputs::enc_logits).to(torch::kFloat32).unsqueeze(0)});
  m.boxes = torch::cat({outputs.at(outputs::dec_boxes).to(torch::kFloat32),
                        outputs.at(outputs::enc_boxes).to(torch::kFloat32).unsqueeze(0)});
  m.matched = match_sets(m.logits, m.boxes, m.gt, settings);
  return m;
}

}  // namespace

torch::Tensor RtdetrCriterion::match(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) {
  const auto m = matched_sets(outputs, targets, settings_);
  const int64_t layers = m.matched.size(0) - 1;
  // LibreYOLO's order: the last layer first, then the earlier ones, then the encoder.
  std::vector<torch::Tensor> order{m.matched[layers - 1]};
  for (int64_t i = 0; i < layers - 1; ++i) order.push_back(m.matched[i]);
  order.push_back(m.matched[layers]);
  return torch::stack(order);
}

RtdetrCriterion::Terms RtdetrCriterion::terms(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) {
  const auto m = matched_sets(outputs, targets, settings_);
  Terms t;
  t.layers = m.logits.size(0) - 1;
  auto matched = set_losses(m.logits, m.boxes, m.matched, m.gt, m.gt.num_boxes, settings_);
  t.matched = {matched.vfl, matched.bbox, matched.giou};
  const auto& dn_logits = outputs.at(outputs::dn_logits);
  if (dn_logits.defined()) {
    // The decoder made 2 x max_gt queries per group: the group count follows from their number,
    // so the criterion cannot disagree with the decoder's denoising setting.
    const auto max_gt = *std::max_element(m.gt.counts.begin(), m.gt.counts.end());
    const auto groups = dn_logits.size(2) / (2 * max_gt);
    const auto dn_boxes = outputs.at(outputs::dn_boxes).to(torch::kFloat32);
    const auto dn_matched = outputs.at(outputs::dn_matched_gt).unsqueeze(0).expand({dn_boxes.size(0), -1, -1});
    auto denoising = set_losses(dn_logits.to(torch::kFloat32), dn_boxes, dn_matched, m.gt,
                                m.gt.num_boxes * static_cast<double>(groups), settings_);
    t.denoising = {denoising.vfl, denoising.bbox, denoising.giou};
  }
  return t;
}

Named RtdetrCriterion::named_losses(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets) {
  const auto t = terms(outputs, targets);
  const SetTerms matched{t.matched[0], t.matched[1], t.matched[2]};
  Named losses;
  // LibreYOLO's order: the last layer, the earlier layers (_aux_i), the encoder selection.
  add_terms(losses, matched, t.layers - 1, "");
  for (int64_t i = 0; i < t.layers - 1; ++i) add_terms(losses, matched, i, "_aux_" + std::to_string(i));
  add_terms(losses, matched, t.layers, "_aux_" + std::to_string(t.layers - 1));
  if (!t.denoising.empty()) {
    const SetTerms denoising{t.denoising[0], t.denoising[1], t.denoising[2]};
    for (int64_t i = 0; i < t.denoising[0].size(0); ++i) add_terms(losses, denoising, i, "_dn_" + std::to_string(i));
  }
  return losses;
}

sdk::LossOutput RtdetrCriterion::operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                                            const torch::Tensor&) {
  const auto t = terms(outputs, targets);
  // LibreYOLO's trainer logs each kind summed over all its suffixes.
  sdk::LossOutput out;
  const auto names = component_names();
  for (size_t k = 0; k < names.size(); ++k) {
    auto sum = t.matched[k].sum();
    if (!t.denoising.empty()) sum = sum + t.denoising[k].sum();
    out.components.emplace_back(names[k], sum);
    out.total = out.total.defined() ? out.total + sum : sum;
  }
  return out;
}

}  // namespace libreyolo::rtdetr
