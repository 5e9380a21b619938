#include "libreyolo/sdk/losses/dynamic_soft_label_assigner.hpp"

#include <torch/torch.h>

#include <algorithm>

namespace libreyolo::sdk::losses {

namespace {

// The reference's constants: the cost of a prior outside every valid gt, and the guard of the
// IoU's union and of the log in the IoU cost.
constexpr double kNonCandidateCost = 1e8;
constexpr double kEps = 1e-7;

// The padded ground truth as the cost matrix sees it: [B, M, 4] float32, [B, M] int64, [B, M] bool.
//
// Padding rows. LibreYOLO packs them as a zero box of class 0 and masks them out of steps 1 and 3
// only: they make no prior a candidate and take no prior, but their columns stay in the cost
// matrix, with finite costs (a zero box at the image origin), so step 4's argmin over the whole
// row sees them. A prior taken by several gts whose cheapest column is a padding row (every
// real gt in its row costing more than that zero box of class 0: e.g. IoU 0 with all of them and
// the prior nearer the origin than their centres, in strides) becomes foreground with class 0,
// a zero box and IoU 0. That is reproduced, not fixed: under QFL a positive with score 0 costs
// exactly what a background prior costs, and the box loss weighs it by its IoU, 0, so only a
// count of positives sees it. Padding rows are reset to that packing here, so the result does
// not depend on what the caller leaves in them. (The reference also takes the valid rows to
// come first; the mask here does not, and gives the same answer when they do.)
struct GroundTruth {
  torch::Tensor boxes, labels, valid;
};

GroundTruth reference_packing(const torch::Tensor& boxes, const torch::Tensor& labels, const torch::Tensor& valid,
                              int64_t num_classes) {
  const auto is_valid = valid.to(torch::kBool);
  const auto real_boxes = boxes.to(torch::kFloat32);
  const auto real_labels = labels.to(torch::kLong).clamp(0, num_classes - 1);
  return {torch::where(is_valid.unsqueeze(2), real_boxes, torch::zeros_like(real_boxes)),
          torch::where(is_valid, real_labels, torch::zeros_like(real_labels)), is_valid};
}

// [B, A, M]: IoU of every prediction with every gt, as the reference's batched_box_iou computes
// it: areas from unclamped sides, inter / max(union, eps).
torch::Tensor prediction_gt_iou(const torch::Tensor& pred, const torch::Tensor& gt) {
  const auto p = pred.unsqueeze(2), g = gt.unsqueeze(1);  // [B, A, 1, 4], [B, 1, M, 4]
  const auto p_low = p.narrow(-1, 0, 2), p_high = p.narrow(-1, 2, 2);
  const auto g_low = g.narrow(-1, 0, 2), g_high = g.narrow(-1, 2, 2);
  const auto overlap = (torch::min(p_high, g_high) - torch::max(p_low, g_low)).clamp_min(0).unbind(-1);
  const auto p_size = (p_high - p_low).unbind(-1), g_size = (g_high - g_low).unbind(-1);
  const auto inter = overlap[0] * overlap[1];
  const auto uni = p_size[0] * p_size[1] + g_size[0] * g_size[1] - inter;
  return inter / uni.clamp_min(kEps);
}

// [B, A] bool: the prior lies strictly inside (all four distances > 0) at least one valid gt.
torch::Tensor candidate_priors(const torch::Tensor& points, const GroundTruth& gt) {
  const auto low = gt.boxes.narrow(-1, 0, 2).unsqueeze(1), high = gt.boxes.narrow(-1, 2, 2).unsqueeze(1);
  const auto deltas = torch::cat({points - low, high - points}, -1);  // [B, A, M, 4]
  return ((deltas.amin(-1) > 0) & gt.valid.unsqueeze(1)).any(-1);
}

// [B, A, M]: the header's cost, 1e8 for non-candidate priors (step 1). The reference also zeroes
// the centre distance of non-candidate priors first; their cost is replaced by 1e8 anyway, so
// that step is left out.
torch::Tensor matching_cost(const torch::Tensor& iou, const torch::Tensor& logits, const torch::Tensor& points,
                            const torch::Tensor& strides, const GroundTruth& gt, const torch::Tensor& candidates,
                            const DynamicSoftLabelAssignerOptions& options) {
  const int64_t batch = iou.size(0), priors = iou.size(1), rows = iou.size(2);
  const auto centres = ((gt.boxes.narrow(-1, 0, 2) + gt.boxes.narrow(-1, 2, 2)) * 0.5).unsqueeze(1);
  const auto distance = (points - centres).pow(2).sum(-1).sqrt() / strides;  // [B, A, M], in strides
  const auto soft_centre = torch::pow(10.0, distance - options.soft_center_radius);
  const auto iou_cost = -torch::log(iou + kEps) * options.iou_weight;
  const auto gt_class_logit = logits.gather(2, gt.labels.unsqueeze(1).expand({batch, priors, rows}));
  const auto quality_gap = (iou - torch::sigmoid(gt_class_logit)).abs().pow(2);
  const auto cls_cost =
      torch::binary_cross_entropy_with_logits(gt_class_logit, iou, {}, {}, at::Reduction::None) * quality_gap;
  const auto cost = cls_cost + iou_cost + soft_centre;
  return torch::where(candidates.unsqueeze(2), cost, torch::full_like(cost, kNonCandidateCost));
}

// [B, A, M] bool: which gt each prior is matched to (steps 2 to 4). The reference loops over
// images and gts, sorting each cost column and taking its first k entries. Here one topk over the
// priors gives every column's min(topk, A) cheapest priors in order (k never exceeds that: it is
// a sum of that many IoUs, each <= 1); the ranks below each column's k, on valid columns, are
// scattered into the matching matrix in one op. Exact cost ties (in practice only among
// non-candidates, all 1e8, or soft-centre terms that overflow to +inf beyond ~41 strides) are
// ordered however topk orders them, as the reference's unstable sort leaves them unspecified;
// they decide only which non-candidates a gt takes when its k exceeds the cheaper priors.
torch::Tensor dynamic_k_matching(const torch::Tensor& cost, const torch::Tensor& iou, const torch::Tensor& valid,
                                 int64_t topk) {
  const int64_t rows = cost.size(2);
  const int64_t depth = std::min(topk, cost.size(1));
  const auto dynamic_k = std::get<0>(iou.topk(depth, 1)).sum(1).to(torch::kInt).clamp_min(1);  // [B, M]
  const auto cheapest = std::get<1>(cost.topk(depth, 1, /*largest=*/false, /*sorted=*/true));    // [B, depth, M]
  const auto rank = torch::arange(depth, cheapest.options()).view({1, depth, 1});
  const auto take = (rank < dynamic_k.unsqueeze(1)) & valid.unsqueeze(1);
  const auto matched = torch::zeros(cost.sizes(), take.options()).scatter(1, cheapest, take);
  // A prior taken by several gts keeps the cheapest column of its whole cost row (argmin: the
  // first on ties, like the reference's).
  const auto shared = matched.sum(2, /*keepdim=*/true) > 1;  // [B, A, 1]
  const auto cheapest_gt = torch::arange(rows, cheapest.options()).view({1, 1, rows}) == cost.argmin(2, true);
  return torch::where(shared, cheapest_gt, matched);
}

SoftLabelAssignment background(int64_t batch, int64_t priors, int64_t num_classes, const torch::Device& device) {
  const auto longs = torch::TensorOptions().dtype(torch::kLong).device(device);
  const auto floats = longs.dtype(torch::kFloat32);
  return {torch::full({batch, priors}, num_classes, longs), torch::zeros({batch, priors, 4}, floats),
          torch::zeros({batch, priors}, floats), torch::zeros({batch, priors}, longs.dtype(torch::kBool)),
          torch::zeros({batch, priors}, longs)};
}

void check_shapes(const torch::Tensor& pred_boxes, const torch::Tensor& pred_logits, const torch::Tensor& priors,
                  const torch::Tensor& prior_strides, const torch::Tensor& gt_boxes, const torch::Tensor& gt_labels,
                  const torch::Tensor& gt_valid, int64_t num_classes) {
  TORCH_CHECK(pred_boxes.dim() == 3 && pred_boxes.size(2) == 4,
              "dynamic_soft_label_assign: pred_boxes must be [B, A, 4], got ", pred_boxes.sizes());
  const int64_t batch = pred_boxes.size(0), anchors = pred_boxes.size(1);
  TORCH_CHECK(pred_logits.sizes() == torch::IntArrayRef({batch, anchors, num_classes}),
              "dynamic_soft_label_assign: pred_logits must be [B, A, ", num_classes, "] = [", batch, ", ", anchors,
              ", ", num_classes, "], got ", pred_logits.sizes());
  TORCH_CHECK(priors.sizes() == torch::IntArrayRef({anchors, 2}),
              "dynamic_soft_label_assign: priors must be [A, 2] (x, y), got ", priors.sizes());
  TORCH_CHECK(prior_strides.numel() == anchors && prior_strides.dim() <= 2,
              "dynamic_soft_label_assign: prior_strides must be [A] or [A, 1], got ", prior_strides.sizes());
  TORCH_CHECK(gt_boxes.dim() == 3 && gt_boxes.size(0) == batch && gt_boxes.size(2) == 4,
              "dynamic_soft_label_assign: gt_boxes must be [B, M, 4], got ", gt_boxes.sizes());
  const int64_t rows = gt_boxes.size(1);
  TORCH_CHECK(gt_labels.sizes() == torch::IntArrayRef({batch, rows}) &&
                  gt_valid.sizes() == torch::IntArrayRef({batch, rows}),
              "dynamic_soft_label_assign: gt_labels and gt_valid must be [B, M] = [", batch, ", ", rows, "], got ",
              gt_labels.sizes(), " and ", gt_valid.sizes());
}

}  // namespace

SoftLabelAssignment dynamic_soft_label_assign(const torch::Tensor& pred_boxes_in, const torch::Tensor& pred_logits_in,
                                              const torch::Tensor& priors_in, const torch::Tensor& prior_strides_in,
                                              const torch::Tensor& gt_boxes_in, const torch::Tensor& gt_labels_in,
                                              const torch::Tensor& gt_valid_in, int64_t num_classes,
                                              const DynamicSoftLabelAssignerOptions& options) {
  TORCH_CHECK(num_classes > 0, "dynamic_soft_label_assign: num_classes must be positive, got ", num_classes);
  TORCH_CHECK(options.topk > 0, "dynamic_soft_label_assign: topk must be positive, got ", options.topk);
  check_shapes(pred_boxes_in, pred_logits_in, priors_in, prior_strides_in, gt_boxes_in, gt_labels_in, gt_valid_in,
               num_classes);
  torch::NoGradGuard no_grad;
  const int64_t batch = pred_boxes_in.size(0), anchors = pred_boxes_in.size(1), rows = gt_boxes_in.size(1);
  // Shapes only: the reference's early exit, and what topk and argmin could not take.
  if (rows == 0 || anchors == 0) return background(batch, anchors, num_classes, pred_boxes_in.device());

  const auto pred_boxes = pred_boxes_in.detach().to(torch::kFloat32);
  const auto logits = pred_logits_in.detach().to(torch::kFloat32);
  const auto points = priors_in.detach().to(torch::kFloat32).view({1, anchors, 1, 2});
  const auto strides = prior_strides_in.detach().to(torch::kFloat32).reshape({1, anchors, 1});
  const auto gt = reference_packing(gt_boxes_in.detach(), gt_labels_in, gt_valid_in, num_classes);

  const auto iou = prediction_gt_iou(pred_boxes, gt.boxes);  // [B, A, M]
  const auto candidates = candidate_priors(points, gt);       // [B, A]
  const auto cost = matching_cost(iou, logits, points, strides, gt, candidates, options);
  const auto matched = dynamic_k_matching(cost, iou, gt.valid, options.topk);

  const auto foreground = matched.any(2);
  const auto gt_index = matched.to(torch::kFloat32).argmax(2);  // the one matched column; 0 for background
  const auto labels = gt.labels.gather(1, gt_index);
  const auto boxes = gt.boxes.gather(1, gt_index.unsqueeze(2).expand({batch, anchors, 4}));
  const auto metrics = iou.gather(2, gt_index.unsqueeze(2)).squeeze(2);
  return {torch::where(foreground, labels, torch::full_like(labels, num_classes)),
          torch::where(foreground.unsqueeze(2), boxes, torch::zeros_like(boxes)),
          torch::where(foreground, metrics, torch::zeros_like(metrics)), foreground, gt_index};
}

}  // namespace libreyolo::sdk::losses
