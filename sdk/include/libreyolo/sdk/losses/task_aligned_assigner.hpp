#pragma once
// Task-aligned assignment (TOOD / YOLOv8 / YOLOv9), vectorised over the padded batch: every
// step is a tensor op on [B, M, A] (images x ground-truth rows x anchors); no per-image loop,
// no host synchronisation, no data-dependent shapes. Padding rows never take anchors.
//
// Per (gt, anchor) pair:
//   metric = score^score_power * IoU^iou_power        (score: predicted probability of the gt's
//                                                       class; IoU: CIoU clamped to [0, 1])
// 1. candidates: anchor points inside the gt box (and, if max_distance > 0, whose farthest box
//    side is within max_distance strides: what a DFL head of reg_max bins can reach);
// 2. each gt takes its top-k candidates by metric, keeping only those with metric > 0;
// 3. (ensure_one_anchor) a gt left with none takes its best anchor overall, if that metric > 0;
// 4. an anchor claimed by several gts keeps the one with the highest IoU;
// 5. target score of a positive anchor = metric / max metric of its gt * max IoU of its gt
//    (maxima over the gt's positive anchors), on the one-hot of the gt's class.
// Defaults are LibreYOLO's YOLOv9 BoxMatcher (topk 10, IoU power 6, score power 0.5, CIoU).

#include <torch/types.h>

#include <cstdint>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"

namespace libreyolo::sdk::losses {

struct TaskAlignedAssignerOptions {
  int64_t topk = 10;
  double score_power = 0.5;  // "alpha" in TOOD; LibreYOLO's cls_factor
  double iou_power = 6.0;    // "beta" in TOOD; LibreYOLO's iou_factor
  double eps = 1e-9;         // in the target-score normalisation
  IoUKind iou_kind = IoUKind::ciou;
  // Candidate anchors must have max(l, t, r, b) / stride <= max_distance; <= 0 disables. YOLOv9
  // uses reg_max - 1.01.
  double max_distance = 0.0;
  bool ensure_one_anchor = true;
  // false: Assignment::scores is left undefined, and only anchor_scores carries the target
  // scores (dense_scores() builds the [B, A, C] tensor for a caller that needs it after all).
  // A criterion whose class loss reads each anchor's one class (class_bce) saves writing and
  // summing B x A x C floats a step (43 MB at YOLOv9's batch 16, 8,400 anchors, 80 classes).
  bool dense_scores = true;
};

struct Assignment {
  torch::Tensor foreground;  // [B, A] bool: anchor has a gt
  torch::Tensor gt_index;    // [B, A] int64: row of the assigned gt in the padded targets (0 if none)
  torch::Tensor labels;      // [B, A] int64: its class (class of row 0 if none: use foreground)
  torch::Tensor boxes;       // [B, A, 4] float32 xyxy: its box (row 0's box if none)
  torch::Tensor scores;      // [B, A, C] float32: normalised alignment on the gt's class, 0 if none
                             // (undefined under options.dense_scores = false)
  torch::Tensor anchor_scores;  // [B, A] float32: that alignment alone (scores summed over classes)
};

// assignment.scores, or where the assigner left it out (dense_scores = false), the same tensor
// made from labels and anchor_scores: the one-hot of each anchor's label times its score, the
// product the assigner itself forms, so the same bits.
LIBREYOLO_SDK_API torch::Tensor dense_scores(const Assignment& assignment, int64_t num_classes);

class LIBREYOLO_SDK_API TaskAlignedAssigner {
 public:
  explicit TaskAlignedAssigner(int64_t num_classes, TaskAlignedAssignerOptions options = {});

  // pred_scores [B, A, C] probabilities (after sigmoid); pred_boxes [B, A, 4] xyxy; anchor_points
  // [A, 2] and pred/gt boxes all in the same units (input pixels); anchor_strides [A] or [A, 1];
  // gt_labels [B, M] (any numeric dtype; clamped into [0, C)); gt_boxes [B, M, 4] xyxy; gt_valid
  // [B, M] bool (sdk::valid_mask). Runs without autograd on detached float32 copies.
  Assignment operator()(const torch::Tensor& pred_scores, const torch::Tensor& pred_boxes,
                        const torch::Tensor& anchor_points, const torch::Tensor& anchor_strides,
                        const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes,
                        const torch::Tensor& gt_valid) const;

  int64_t num_classes() const { return num_classes_; }
  const TaskAlignedAssignerOptions& options() const { return options_; }

 private:
  int64_t num_classes_;
  TaskAlignedAssignerOptions options_;
};

}  // namespace libreyolo::sdk::losses
