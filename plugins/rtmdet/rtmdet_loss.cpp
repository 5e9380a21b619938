#include "rtmdet_loss.hpp"

#include <torch/torch.h>

#include <libreyolo/sdk/losses/anchors.hpp>
#include <libreyolo/sdk/losses/box_ops.hpp>
#include <libreyolo/sdk/losses/dynamic_soft_label_assigner.hpp>
#include <libreyolo/sdk/losses/quality_focal_loss.hpp>
#include <libreyolo/sdk/targets.hpp>

#include <string>
#include <vector>

#include "config.hpp"

namespace libreyolo::families::rtmdet {

namespace losses = sdk::losses;

namespace {

// ltrb distances from each prior point to xyxy boxes.
torch::Tensor distances_to_boxes(const torch::Tensor& points, const torch::Tensor& distances) {
  return torch::cat({points - distances.narrow(-1, 0, 2), points + distances.narrow(-1, 2, 2)}, -1);
}

class RtmdetCriterion : public sdk::Criterion {
 public:
  RtmdetCriterion(int64_t num_classes, RtmdetLossOptions options) : num_classes_(num_classes), options_(options) {
    TORCH_CHECK(num_classes > 0, "RTMDet criterion: num_classes must be positive");
  }

  sdk::LossOutput operator()(const std::vector<torch::Tensor>& outputs, const sdk::Targets& targets,
                             const torch::Tensor&) override {
    const auto levels = static_cast<int64_t>(kStrides.size());
    check_outputs(outputs, levels);
    const std::vector<torch::Tensor> cls_levels(outputs.begin(), outputs.begin() + levels);
    const std::vector<torch::Tensor> reg_levels(outputs.begin() + levels, outputs.end());
    const auto logits = losses::anchor_rows(cls_levels);     // [B, A, C] float32
    const auto distances = losses::anchor_rows(reg_levels);  // [B, A, 4]
    const auto priors =
        losses::make_anchors(cls_levels, std::vector<int64_t>(kStrides.begin(), kStrides.end()), /*offset=*/0.0);
    const auto boxes = distances_to_boxes(priors.points, distances);

    const auto gt = targets.boxes.to(torch::kFloat32);
    const auto gt_boxes = losses::xywh_to_xyxy(gt.narrow(2, 1, 4));
    const auto gt_labels = gt.select(2, 0).to(torch::kInt64).clamp(0, num_classes_ - 1);
    // LibreYOLO's trainer keeps the boxes with a positive width and height.
    const auto gt_valid = sdk::valid_mask(targets) & (gt.select(2, 3) > 0) & (gt.select(2, 4) > 0);
    losses::DynamicSoftLabelAssignerOptions assigner;
    assigner.topk = options_.assigner_topk;
    assigner.iou_weight = options_.iou_weight;
    assigner.soft_center_radius = options_.soft_center_radius;
    const auto assignment = losses::dynamic_soft_label_assign(boxes.detach(), logits.detach(), priors.points,
                                                              priors.strides, gt_boxes, gt_labels, gt_valid,
                                                              num_classes_, assigner);

    // A device tensor: reading it on the host would stall the step.
    const auto avg_factor = assignment.metrics.sum().clamp_min(1.0);
    const auto cls = losses::quality_focal_loss(logits, assignment.labels, assignment.metrics, options_.qfl_beta)
                         .sum() / avg_factor * options_.cls_weight;
    // where(), not a product, keeps a background prior's degenerate GIoU out of the gradient.
    const auto giou_terms = torch::where(assignment.foreground,
                                         losses::giou_loss(boxes, assignment.boxes) * assignment.metrics,
                                         torch::zeros_like(assignment.metrics));
    const auto bbox = giou_terms.sum() / avg_factor * options_.bbox_weight;
    return {cls + bbox, {{"cls", cls.detach()}, {"bbox", bbox.detach()}}};
  }

  std::vector<std::string> component_names() const override { return {"cls", "bbox"}; }

 private:
  void check_outputs(const std::vector<torch::Tensor>& outputs, int64_t levels) const {
    TORCH_CHECK(static_cast<int64_t>(outputs.size()) == 2 * levels, "RTMDet criterion: expected ", 2 * levels,
                " outputs (class logits and distances per level), got ", outputs.size());
    for (int64_t l = 0; l < levels; ++l) {
      const auto& cls = outputs[static_cast<size_t>(l)];
      const auto& reg = outputs[static_cast<size_t>(l + levels)];
      TORCH_CHECK(cls.dim() == 4 && cls.size(1) == num_classes_, "RTMDet criterion: class logits must be [B, ",
                  num_classes_, ", H, W], got ", cls.sizes());
      TORCH_CHECK(reg.dim() == 4 && reg.size(1) == 4 && reg.size(2) == cls.size(2) && reg.size(3) == cls.size(3),
                  "RTMDet criterion: distances must be [B, 4, H, W] beside their logits, got ", reg.sizes());
    }
  }

  int64_t num_classes_;
  RtmdetLossOptions options_;
};

}  // namespace

std::shared_ptr<sdk::Criterion> make_rtmdet_criterion(int64_t num_classes, RtmdetLossOptions options) {
  return std::make_shared<RtmdetCriterion>(num_classes, options);
}

}  // namespace libreyolo::families::rtmdet
