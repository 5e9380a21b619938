#include "yolo9_loss.hpp"

#include <torch/torch.h>

#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/losses/box_dfl_loss.hpp>
#include <libreyolo/sdk/losses/box_ops.hpp>
#include <libreyolo/sdk/losses/class_bce.hpp>
#include <libreyolo/sdk/losses/dfl.hpp>
#include <libreyolo/sdk/losses/task_aligned_assigner.hpp>
#include <libreyolo/sdk/targets.hpp>

#include <string>
#include <utility>

namespace libreyolo::families::yolo9 {

namespace losses = libreyolo::sdk::losses;

namespace {

class Yolo9Criterion : public sdk::Criterion {
 public:
  Yolo9Criterion(int64_t num_classes, int64_t reg_max, std::vector<int64_t> strides, Yolo9LossGains gains)
      : num_classes_(num_classes),
        reg_max_(reg_max),
        strides_(std::move(strides)),
        gains_(gains),
        assigner_(num_classes, assigner_options(reg_max)) {
    TORCH_CHECK(num_classes > 0, "YOLOv9 criterion: num_classes must be positive");
    TORCH_CHECK(reg_max > 1, "YOLOv9 criterion: reg_max must be at least 2");
    TORCH_CHECK(!strides_.empty(), "YOLOv9 criterion: no strides");
  }

  sdk::LossOutput operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                             const torch::Tensor&) override {
    TORCH_CHECK(outputs.size() == strides_.size(), "YOLOv9 criterion: expected ", strides_.size(),
                " output levels, got ", outputs.size());
    const int64_t channels = 4 * reg_max_ + num_classes_;
    for (const auto& level : outputs)
      TORCH_CHECK(level.dim() == 4 && level.size(1) == channels, "YOLOv9 criterion: each output must be [B, ",
                  channels, " (4*reg_max + nc), H, W], got ", level.sizes());
    // The levels as one float32 [B, A, 4R + C] (anchor_rows: anchor-major pieces, one
    // concatenation, one cast), and one split rather than two narrows: a narrow's backward fills
    // a zero tensor of the whole prediction and the two are then added (five passes over 16 x 8400
    // x 144 floats at YOLOv9-t's batch 16); the split's backward is one concatenation.
    const auto p = losses::anchor_rows(outputs);
    const int64_t batch = p.size(0), anchors = p.size(1);
    const auto parts = p.split_with_sizes({4 * reg_max_, num_classes_}, 2);
    const auto pred_dist = parts[0].reshape({batch, anchors, 4, reg_max_});
    const auto& pred_logits = parts[1];

    const auto& grid = anchors_for(outputs);
    const auto& points = grid.anchors.points;    // [A, 2] pixels
    const auto& strides = grid.anchors.strides;  // [A, 1]
    const auto& points_grid = grid.points_grid;  // [A, 2] in units of each level's stride

    // Boxes in grid units (pixels / stride), as LibreYOLO computes the box and DFL losses.
    const auto pred_boxes_grid = losses::distance_to_bbox(losses::dfl_decode(pred_dist), points_grid);  // [B, A, 4]
    const auto pred_boxes_px = pred_boxes_grid * strides;

    const auto gt = targets.boxes.to(torch::kFloat32);  // [B, M, 5]
    const auto gt_labels = gt.select(2, 0);
    const auto gt_xyxy = losses::xywh_to_xyxy(gt.narrow(2, 1, 4));     // pixels
    const auto assignment = assigner_(torch::sigmoid(pred_logits.detach()), pred_boxes_px.detach(), points,
                                      strides, gt_labels, gt_xyxy, sdk::valid_mask(targets));

    // The assigner's scores are one class per anchor, so the criterion reads them as each
    // anchor's score (anchor_scores: the dense [B, A, C] summed over classes, without making it);
    // the dense tensor is made only if the composed class loss runs.
    const auto& weight = assignment.anchor_scores;  // [B, A]; zero on background anchors
    const auto target_scores_sum = weight.sum().clamp_min(1.0);

    // Every anchor's BCE against the assigner's scores (one class each: the assigned label at the
    // normalised metric, which is `weight`); composed, or one launch each way under class_bce.
    const auto loss_cls =
        losses::class_bce_sum(
            {pred_logits, assignment.labels, weight, {}, [&] { return losses::dense_scores(assignment, num_classes_); }}) /
        target_scores_sum;

    // Background anchors get the anchor's own cell (grid.cell_boxes) as a stand-in target
    // (weight 0) so that the CIoU stays well conditioned everywhere and the whole batch is one
    // dense computation.
    const auto target_boxes_grid =
        torch::where(assignment.foreground.unsqueeze(2), assignment.boxes / strides, grid.cell_boxes);

    // CIoU and DFL over every anchor (composed, or two launches under fused_kernels=box_dfl_loss).
    const auto sums = losses::box_dfl_loss(
        {pred_dist, pred_boxes_grid, points_grid, target_boxes_grid, weight, static_cast<double>(reg_max_) - 1.01});
    const auto loss_box = sums.box / target_scores_sum;
    const auto loss_dfl = sums.dfl / target_scores_sum;

    const auto box = loss_box * gains_.box;
    const auto cls = loss_cls * gains_.cls;
    const auto dfl = loss_dfl * gains_.dfl;
    return {box + cls + dfl, {{"box", box.detach()}, {"cls", cls.detach()}, {"dfl", dfl.detach()}}};
  }

  std::vector<std::string> component_names() const override { return {"box", "cls", "dfl"}; }

 private:
  static losses::TaskAlignedAssignerOptions assigner_options(int64_t reg_max) {
    losses::TaskAlignedAssignerOptions options;  // topk 10, IoU^6 * score^0.5, CIoU
    options.max_distance = static_cast<double>(reg_max) - 1.01;
    options.ensure_one_anchor = true;
    options.dense_scores = false;  // anchor_scores carry them (see operator())
    return options;
  }

  // Everything derived from the anchors alone. It depends only on the level sizes and the
  // device, so it is rebuilt when either changes, not every step (the loss runs eagerly, and
  // each launch is host time the GPU may wait for).
  struct AnchorGrid {
    losses::AnchorPoints anchors;  // pixels, and each anchor's stride
    torch::Tensor points_grid;     // [A, 2] anchor points in units of their level's stride
    torch::Tensor cell_boxes;      // [1, A, 4] each anchor's own cell, xyxy in those units
  };

  const AnchorGrid& anchors_for(const std::vector<torch::Tensor>& outputs) {
    std::vector<int64_t> key;
    for (const auto& level : outputs) {
      key.push_back(level.size(2));
      key.push_back(level.size(3));
    }
    const auto device = outputs.front().device();
    if (!grid_.anchors.points.defined() || key != anchor_key_ || grid_.anchors.points.device() != device) {
      grid_.anchors = losses::make_anchors(outputs, strides_);
      grid_.points_grid = grid_.anchors.points / grid_.anchors.strides;
      const auto half_cell = torch::full({1, 2}, 0.5, grid_.points_grid.options());
      grid_.cell_boxes = torch::cat({grid_.points_grid - half_cell, grid_.points_grid + half_cell}, 1).unsqueeze(0);
      anchor_key_ = std::move(key);
    }
    return grid_;
  }

  int64_t num_classes_;
  int64_t reg_max_;
  std::vector<int64_t> strides_;
  Yolo9LossGains gains_;
  losses::TaskAlignedAssigner assigner_;
  AnchorGrid grid_;
  std::vector<int64_t> anchor_key_;
};

}  // namespace

std::shared_ptr<sdk::Criterion> make_yolo9_criterion(int num_classes, int reg_max, std::vector<int64_t> strides,
                                                     Yolo9LossGains gains) {
  return std::make_shared<Yolo9Criterion>(num_classes, reg_max, std::move(strides), gains);
}

}  // namespace libreyolo::families::yolo9
