#pragma once
// The RTMDet criterion, after mmdetection/mmyolo's RTMDetHead.loss_by_feat as LibreYOLO's
// RTMDetLoss (libreyolo/models/rtmdet/loss.py) computes it, with PR #568's float32 math:
//   assignment: the SDK's dynamic soft-label assigner (topk 13, iou_weight 3,
//               soft_center_radius 3) on the detached decoded boxes and class logits;
//   avg_factor = max(1, sum over the batch of the positives' IoU with their GT);
//   cls  = 1 * sum over all priors of QFL(logits, assigned class, IoU; beta 2) / avg_factor
//   bbox = 2 * sum over positives of IoU * (1 - GIoU(box, GT)) / avg_factor
// total = cls + bbox; logged as "cls" and "bbox" (LibreYOLO's names).
//
// Expected outputs: RtmdetDetector::forward_capturable's six tensors, the class logits of P3,
// P4, P5 ([B, nc, H_l, W_l]) then their ltrb distances in input pixels ([B, 4, H_l, W_l]).
// Priors are at cell corners (mmdetection's MlvlPointGenerator with offset 0). Every tensor is
// cast to float32 first: under AMP the head's fp16 outputs would overflow in box areas
// (640^2 > 65504), one of the two causes of LibreYOLO's NaN losses (issues #542, #566).
// Vectorised over the padded batch, no host reads.

#include <libreyolo/sdk/criterion.hpp>

#include <cstdint>
#include <memory>

namespace libreyolo::families::rtmdet {

struct RtmdetLossOptions {
  double cls_weight = 1.0;   // QualityFocalLoss loss_weight
  double bbox_weight = 2.0;  // GIoULoss loss_weight
  double qfl_beta = 2.0;
  int64_t assigner_topk = 13;
  double iou_weight = 3.0;
  double soft_center_radius = 3.0;
};

std::shared_ptr<sdk::Criterion> make_rtmdet_criterion(int64_t num_classes, RtmdetLossOptions options = {});

}  // namespace libreyolo::families::rtmdet
