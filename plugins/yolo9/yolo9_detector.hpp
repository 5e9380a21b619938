#pragma once
// The YOLOv9 detector as the host sees it: LibreYOLO's LibreYOLO9Model (detection task),
// backbone + neck + head registered as "backbone", "neck", "head" so that state_dict keys are
// LibreYOLO's, e.g. backbone.conv0.conv.weight, neck.elan_up1.cv2.0.m.0.cv1.conv1.bn.running_var,
// head.cv3.2.2.bias.

#include <libreyolo/sdk/detector.hpp>

#include <string>
#include <vector>

#include "head.hpp"
#include "network.hpp"

namespace libreyolo::families::yolo9 {

class Yolo9Detector : public sdk::Detector {
 public:
  Yolo9Detector(const std::string& size, int64_t num_classes);

  // The whole network: per level [B, 4 * 16 + nc, H / s, W / s] for s = 8, 16, 32.
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override;

  // Boxes [B, N, 4] xyxy in input pixels, scores [B, N, nc] (sigmoid); N = sum of H*W / s^2.
  sdk::Candidates decode(const std::vector<torch::Tensor>& outputs) override;

  const std::string& size() const { return size_; }
  int64_t num_classes() const { return num_classes_; }
  int64_t reg_max() const { return kRegMax; }
  const std::array<int64_t, 3>& strides() const { return kStrides; }

  Backbone9 backbone{nullptr};
  Neck9 neck{nullptr};
  DDetect head{nullptr};

 private:
  std::string size_;
  int64_t num_classes_;
};

}  // namespace libreyolo::families::yolo9
