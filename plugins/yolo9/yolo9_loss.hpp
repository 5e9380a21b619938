#pragma once
// The YOLOv9 criterion, after LibreYOLO's YOLO9Loss (libreyolo/models/yolo9/loss.py): TAL
// assignment, BCE classification, CIoU box and DFL losses, all normalised by the sum of the
// target scores, weighted box 7.5, dfl 1.5, cls 0.5 and logged weighted as "box", "cls", "dfl".
//
// Expected outputs (what the detector's forward returns in training, LibreYOLO's DDetect):
// one tensor per level, strides in order (8, 16, 32), each [B, 4*reg_max + nc, H_l, W_l] with
// H_l = H / stride_l, W_l = W / stride_l. Channels 0 .. 4*reg_max-1 are the box distributions,
// side-major (channel = side * reg_max + bin, sides l, t, r, b, bins in units of the level's
// stride); the last nc channels are class logits (no objectness). No auxiliary branch: LibreYOLO's
// YOLOv9 trains the single main head only.

#include <libreyolo/sdk/criterion.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace libreyolo::families::yolo9 {

struct Yolo9LossGains {
  double box = 7.5;
  double dfl = 1.5;
  double cls = 0.5;
};

std::shared_ptr<libreyolo::sdk::Criterion> make_yolo9_criterion(int num_classes, int reg_max = 16,
                                                                 std::vector<int64_t> strides = {8, 16, 32},
                                                                 Yolo9LossGains gains = {});

}  // namespace libreyolo::families::yolo9
