#include "yolox_loss.hpp"

#include <torch/torch.h>

#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/losses/class_bce.hpp>
#include <libreyolo/sdk/targets.hpp>

#include <string>
#include <utility>
#include <vector>

#include "head.hpp"

namespace libreyolo::families::yolox {

namespace {

// LibreYOLO's IoULoss(loss_type="iou") element-wise: 1 - IoU^2 of (cx, cy, w, h) boxes, with
// its 1e-16 in the denominator.
torch::Tensor iou_loss(const torch::Tensor& pred, const torch::Tensor& target) {
  const auto pred_half = pred.narrow(-1, 2, 2) / 2, target_half = target.narrow(-1, 2, 2) / 2;
  const auto pred_xy = pred.narrow(-1, 0, 2), target_xy = target.narrow(-1, 0, 2);
  const auto top_left = torch::max(pred_xy - pred_half, target_xy - target_half);
  const auto bottom_right = torch::min(pred_xy + pred_half, target_xy + target_half);
  const auto area_pred = pred.select(-1, 2) * pred.select(-1, 3);
  const auto area_target = target.select(-1, 2) * target.select(-1, 3);
  const auto overlaps = (top_left < bottom_right).to(pred.scalar_type()).prod(-1);
  const auto extent = bottom_right - top_left;
  const auto intersection = extent.select(-1, 0) * extent.select(-1, 1) * overlaps;
  const auto iou = intersection / (area_pred + area_target - intersection + 1e-16);
  return 1 - iou.pow(2);
}

class YoloxCriterion : public sdk::Criterion {
 public:
  YoloxCriterion(int64_t num_classes, std::shared_ptr<const L1Switch> l1, YoloxLossOptions options)
      : num_classes_(num_classes), l1_(std::move(l1)), options_(options) {
    TORCH_CHECK(num_classes > 0, "YOLOX criterion: num_classes must be positive");
  }

  sdk::LossOutput operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                             const torch::Tensor&) override {
    TORCH_CHECK(outputs.size() == kStrides.size(), "YOLOX criterion: expected ", kStrides.size(),
                " output levels, got ", outputs.size());
    for (const auto& level : outputs)
      TORCH_CHECK(level.dim() == 4 && level.size(1) == 5 + num_classes_, "YOLOX criterion: each output must be [B, ",
                  5 + num_classes_, " (5 + nc), H, W], got ", level.sizes());
    const auto& [grid, strides] = grid_for(outputs);
    // The levels as one float32 [B, A, 5 + C] (anchor_rows: anchor-major pieces, one
    // concatenation, one cast), and splits rather than narrows: a narrow's backward fills a zero
    // tensor of the whole prediction and the fills are then added; a split's backward is one
    // concatenation.
    const auto p = sdk::losses::anchor_rows(outputs);
    const auto parts = p.split_with_sizes({4, 1, num_classes_}, 2);
    const auto& raw_box = parts[0];
    const auto obj_logit = parts[1].squeeze(2);
    const auto& cls_logit = parts[2];
    const auto box_parts = raw_box.split_with_sizes({2, 2}, 2);
    const auto pred_boxes = torch::cat({(box_parts[0] + grid) * strides, torch::exp(box_parts[1]) * strides}, 2);

    const auto gt = targets.boxes.to(torch::kFloat32);
    const auto gt_boxes = gt.narrow(2, 1, 4);  // [B, M, 4] cx, cy, w, h
    const auto gt_labels = gt.select(2, 0).to(torch::kInt64).clamp(0, num_classes_ - 1);
    const auto scores = torch::sqrt(torch::sigmoid(cls_logit.detach()) * torch::sigmoid(obj_logit.detach()).unsqueeze(2));
    const auto assignment = simota_assign(pred_boxes, scores, grid, strides, gt_boxes, gt_labels,
                                          sdk::valid_mask(targets), options_.assigner);

    const auto fg = assignment.foreground;  // [B, A]
    const auto fg_float = fg.to(torch::kFloat32);
    const auto num_fg = fg_float.sum().clamp_min(1.0);
    const auto zero = torch::zeros({}, p.options());
    const auto index = assignment.gt_index;
    const auto matched_box = gt_boxes.gather(1, index.unsqueeze(2).expand({-1, -1, 4}));  // [B, A, 4]
    const auto matched_label = gt_labels.gather(1, index);                                // [B, A]

    // Background anchors see their (padding or row-0) gt box as the prediction too, so nothing
    // undefined is computed there; torch::where then keeps their gradient at zero.
    const auto safe_pred = torch::where(fg.unsqueeze(2), pred_boxes, matched_box);
    const auto loss_iou = torch::where(fg, iou_loss(safe_pred, matched_box), zero).sum() / num_fg;

    const auto loss_obj =
        torch::binary_cross_entropy_with_logits(obj_logit, fg_float, {}, {}, at::Reduction::Sum) / num_fg;

    // The foreground's BCE against its matched class at the matched IoU: composed (a [B, A, C]
    // target: one_hot() would read the labels' range on the host, a comparison with arange does
    // not), or one launch each way under fused_kernels=class_bce.
    const auto cls_target = [&] {
      const auto class_ids = torch::arange(num_classes_, matched_label.options());
      return (matched_label.unsqueeze(2) == class_ids).to(torch::kFloat32) * assignment.iou.unsqueeze(2);
    };
    const auto loss_cls =
        sdk::losses::class_bce_sum({cls_logit, matched_label, assignment.iou, fg, cls_target}) / num_fg;

    torch::Tensor loss_l1 = zero;
    if (l1_ && l1_->on) {
      const auto l1_target = torch::cat({matched_box.narrow(2, 0, 2) / strides - grid,
                                         torch::log(matched_box.narrow(2, 2, 2) / strides + 1e-8)},
                                        2);
      loss_l1 = torch::where(fg.unsqueeze(2), (raw_box - l1_target).abs(), zero).sum() / num_fg;
    }

    const auto iou = loss_iou * options_.iou_weight;
    const auto total = iou + loss_obj + loss_cls + loss_l1;
    return {total,
            {{"iou", iou.detach()}, {"obj", loss_obj.detach()}, {"cls", loss_cls.detach()}, {"l1", loss_l1.detach()}}};
  }

  std::vector<std::string> component_names() const override { return {"iou", "obj", "cls", "l1"}; }

 private:
  // The grid depends only on the level sizes and the device: rebuilt when either changes.
  const std::pair<torch::Tensor, torch::Tensor>& grid_for(const std::vector<torch::Tensor>& outputs) {
    std::vector<int64_t> key;
    for (const auto& level : outputs) {
      key.push_back(level.size(2));
      key.push_back(level.size(3));
    }
    const auto device = outputs.front().device();
    if (!grid_.first.defined() || key != grid_key_ || grid_.first.device() != device) {
      grid_ = make_grid(outputs, kStrides);
      grid_key_ = std::move(key);
    }
    return grid_;
  }

  int64_t num_classes_;
  std::shared_ptr<const L1Switch> l1_;
  YoloxLossOptions options_;
  std::pair<torch::Tensor, torch::Tensor> grid_;  // (col, row) [A, 2], stride [A, 1]
  std::vector<int64_t> grid_key_;
};

}  // namespace

std::shared_ptr<sdk::Criterion> make_yolox_criterion(int64_t num_classes, std::shared_ptr<const L1Switch> l1,
                                                     YoloxLossOptions options) {
  return std::make_shared<YoloxCriterion>(num_classes, std::move(l1), options);
}

}  // namespace libreyolo::families::yolox
