#pragma once
// The YOLOX detector as the host sees it: LibreYOLO's LibreYOLOXModel, neck (which owns the
// backbone) and head registered as "backbone" and "head", so that state_dict keys are
// LibreYOLO's, e.g. backbone.backbone.stem.conv.conv.weight, backbone.C3_n4.m.0.conv2.bn.bias,
// head.cls_preds.2.bias.

#include <libreyolo/sdk/detector.hpp>

#include <memory>
#include <string>
#include <vector>

#include "head.hpp"
#include "l1_switch.hpp"
#include "network.hpp"

namespace libreyolo::families::yolox {

class YoloxDetector : public sdk::Detector {
 public:
  YoloxDetector(const std::string& size, int64_t num_classes);

  // The whole network: per level [B, 5 + nc, H / s, W / s] raw (head.hpp), s = 8, 16, 32.
  // Images are BGR 0-255 (FamilyInfo::input).
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override;

  // Boxes [B, N, 4] xyxy in input pixels, scores [B, N, nc] = sigmoid(obj) * sigmoid(cls).
  sdk::Candidates decode(const std::vector<torch::Tensor>& outputs) override;

  // kL1LossOn (from the recipe's schedule, when augmentation stops for the final
  // no_aug_epochs) turns the L1 loss on. The schedule also declares that the captured region
  // changes there (a new loss term and its backward into the network).
  void on_scheduled_change(const std::string& event) override;

  const std::string& size() const { return size_; }
  int64_t num_classes() const { return num_classes_; }
  bool use_l1() const { return l1_->on; }
  // Shared with the criterion (Family::create_criterion).
  std::shared_ptr<const L1Switch> l1_switch() const { return l1_; }

  std::shared_ptr<YOLOPAFPN> backbone;
  std::shared_ptr<YOLOXHead> head;

 private:
  std::string size_;
  int64_t num_classes_;
  std::shared_ptr<L1Switch> l1_ = std::make_shared<L1Switch>();
};

}  // namespace libreyolo::families::yolox
