#include "simota.hpp"

#include <torch/torch.h>

#include <libreyolo/sdk/losses/simota_cost.hpp>
#include <libreyolo/sdk/losses/simota_selection.hpp>

#include <algorithm>

namespace libreyolo::families::yolox {

SimOtaAssignment simota_assign(const torch::Tensor& pred_boxes_in, const torch::Tensor& pred_scores_in,
                               const torch::Tensor& grid_in, const torch::Tensor& strides_in,
                               const torch::Tensor& gt_boxes_in, const torch::Tensor& gt_labels,
                               const torch::Tensor& gt_valid, const SimOtaOptions& options) {
  torch::NoGradGuard no_grad;
  const auto pred_boxes = pred_boxes_in.detach().to(torch::kFloat32);
  const auto pred_scores = pred_scores_in.detach().to(torch::kFloat32);
  const auto gt_boxes = gt_boxes_in.detach().to(torch::kFloat32);
  const int64_t batch = pred_boxes.size(0), anchors = pred_boxes.size(1);
  const int64_t rows = gt_boxes.size(1), classes = pred_scores.size(2);
  TORCH_CHECK(pred_boxes.dim() == 3 && pred_boxes.size(2) == 4, "simota: pred_boxes must be [B, A, 4]");
  TORCH_CHECK(pred_scores.dim() == 3 && pred_scores.size(0) == batch && pred_scores.size(1) == anchors,
              "simota: pred_scores must be [B, A, C]");
  TORCH_CHECK(gt_boxes.dim() == 3 && gt_boxes.size(0) == batch && gt_boxes.size(2) == 4,
              "simota: gt_boxes must be [B, M, 4]");
  TORCH_CHECK(gt_valid.sizes() == torch::IntArrayRef({batch, rows}), "simota: gt_valid must be [B, M]");
  TORCH_CHECK(grid_in.size(0) == anchors && strides_in.numel() == anchors, "simota: grid/strides must have A rows");

  const auto valid = gt_valid.to(torch::kBool);
  const auto labels = gt_labels.to(torch::kInt64).clamp(0, classes - 1);  // [B, M]

  // 1-2. Centre prior, IoU and cost ([B, M, A]): the SDK's stage, fused on CUDA where allowed.
  sdk::losses::SimOtaCostOptions cost_options;
  cost_options.center_radius = options.center_radius;
  cost_options.iou_weight = options.iou_weight;
  cost_options.outside_center_cost = options.outside_center_cost;
  const auto options_f = pred_boxes.options();
  const auto [ious, cost, candidates] = sdk::losses::simota_cost(
      {pred_boxes, pred_scores, grid_in.to(options_f), strides_in.to(options_f).reshape({anchors}), gt_boxes, labels,
       valid},
      cost_options);

  // 3. Dynamic k: padding rows take none; non-candidate anchors contribute IoU 0, which changes
  // no sum (LibreYOLO sums the top min(10, candidates) IoUs).
  const int64_t topk = std::min(options.candidate_topk, anchors);
  const auto k_options = torch::TensorOptions().dtype(torch::kInt64).device(pred_boxes.device());
  const auto dynamic_k = torch::where(valid, std::get<0>(ious.topk(topk, 2)).sum(2).to(torch::kInt32).clamp_min(1).to(torch::kInt64),
                                      torch::zeros({}, k_options));

  // 4-5. Each gt's k cheapest anchors, conflicts to the cheapest gt: the SDK's stage, fused on
  // CUDA where allowed.
  const auto selection = sdk::losses::simota_selection({ious, cost, candidates}, dynamic_k, topk);
  SimOtaAssignment out;
  out.foreground = selection.foreground;
  out.gt_index = selection.gt_index;
  out.iou = selection.iou;
  out.dynamic_k = dynamic_k;
  out.candidates = candidates;
  return out;
}

}  // namespace libreyolo::families::yolox
