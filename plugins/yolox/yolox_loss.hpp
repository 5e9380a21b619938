#pragma once
// The YOLOX criterion, after LibreYOLO's YOLOXHead.get_losses (libreyolo/models/yolox/nn.py):
// SimOTA assignment (simota.hpp), then, normalised by the number of foreground anchors in the
// batch (at least 1):
//   iou = 5 * sum over fg of (1 - IoU^2)                   (IoULoss, boxes decoded to pixels)
//   obj = sum over all anchors of BCE(obj logit, fg)
//   cls = sum over fg of BCE(class logits, onehot(gt class) * IoU of the prediction with its gt)
//   l1  = sum over fg of |raw box - encoded gt|            (only while the L1 switch is on)
// total = iou + obj + cls + l1; logged as "iou" (weighted), "obj", "cls", "l1" (0 while off).
//
// Expected outputs: one tensor per level, strides 8, 16, 32, each [B, 5 + nc, H_l, W_l] raw as
// YOLOXHead::forward returns them (head.hpp). Vectorised over the padded batch, no host reads.

#include <libreyolo/sdk/criterion.hpp>

#include <cstdint>
#include <memory>

#include "l1_switch.hpp"
#include "simota.hpp"

namespace libreyolo::families::yolox {

struct YoloxLossOptions {
  double iou_weight = 5.0;  // LibreYOLO's reg_weight
  SimOtaOptions assigner;
};

// `l1` is read at every call (null: never on).
std::shared_ptr<sdk::Criterion> make_yolox_criterion(int64_t num_classes, std::shared_ptr<const L1Switch> l1,
                                                     YoloxLossOptions options = {});

}  // namespace libreyolo::families::yolox
