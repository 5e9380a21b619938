#pragma once
// YOLOv9's decoupled anchor-free detection head (LibreYOLO's DDetect) and the inference decode
// it uses: anchor points at cell centres, the DFL integral over reg_max bins, dist2bbox
// (through the SDK's shared helpers in libreyolo/sdk/losses/).
//
// State-dict keys: head.cv2.<level>.{0,1}.{conv,bn}.* and head.cv2.<level>.2.{weight,bias}
// (box towers), head.cv3.<level>.... (class towers). Python's `stride` buffer and DFL's
// `project` buffer are non-persistent, so neither is registered here.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "blocks.hpp"

namespace libreyolo::families::yolo9 {

constexpr int64_t kRegMax = 16;
constexpr std::array<int64_t, 3> kStrides{8, 16, 32};

// Python's nn.Sequential(Conv(3x3), Conv(3x3, groups), nn.Conv2d(1x1, groups, bias)):
// children "0", "1", "2".
class HeadTowerImpl : public torch::nn::Module {
 public:
  HeadTowerImpl(int64_t in_channels, int64_t hidden, int64_t out_channels, int64_t groups);
  torch::Tensor forward(const torch::Tensor& x);
  // The two 3x3 convolutions' output, what `pred` reads.
  torch::Tensor features(const torch::Tensor& x);

  Conv conv0{nullptr};           // "0"
  Conv conv1{nullptr};           // "1"
  torch::nn::Conv2d pred{nullptr};  // "2"
};
TORCH_MODULE(HeadTower);

class DDetectImpl : public torch::nn::Module {
 public:
  DDetectImpl(int64_t num_classes, const std::array<int64_t, 3>& in_channels,
              int64_t reg_max = kRegMax);

  // Level `level`'s box and class tower features (what their prediction convolutions read). The
  // detector runs the towers, side by side where allowed (yolo9_detector.cpp: P3's beside the
  // neck's bottom-up path), then predict() on every level's.
  torch::Tensor box_features(std::size_t level, const torch::Tensor& x);
  torch::Tensor class_features(std::size_t level, const torch::Tensor& x);

  // Per level, [B, 4 * reg_max + nc, H_i, W_i]: box distribution logits, then class logits, from
  // {box features, class features} of each level: the six prediction convolutions through
  // sdk::prediction_levels (one launch into the criterion's rows where fused_kernels allows
  // prediction_rows).
  std::vector<torch::Tensor> predict(const std::vector<std::array<torch::Tensor, 2>>& features);

  // LibreYOLO's _init_bias: box biases 1.0, class biases log(5 / nc / (640 / s)^2).
  void init_bias();

  int64_t num_classes() const { return num_classes_; }
  int64_t reg_max() const { return reg_max_; }
  int64_t box_hidden_channels() const { return box_hidden_; }
  int64_t class_hidden_channels() const { return class_hidden_; }

  torch::nn::ModuleList cv2{nullptr};  // box towers, one per level
  torch::nn::ModuleList cv3{nullptr};  // class towers, one per level

 private:
  int64_t num_classes_;
  int64_t reg_max_;
  int64_t box_hidden_;
  int64_t class_hidden_;
  std::vector<HeadTower> box_towers_;
  std::vector<HeadTower> class_towers_;
};
TORCH_MODULE(DDetect);

// Raw head outputs (per level [B, 4 * reg_max + nc, H, W]) -> boxes [B, N, 4] xyxy in input
// pixels and scores [B, N, nc] (sigmoid), in float32: LibreYOLO's DDetect inference path.
std::pair<torch::Tensor, torch::Tensor> decode_outputs(const std::vector<torch::Tensor>& outputs,
                                                       int64_t num_classes, int64_t reg_max = kRegMax,
                                                       const std::array<int64_t, 3>& strides = kStrides);

}  // namespace libreyolo::families::yolo9
