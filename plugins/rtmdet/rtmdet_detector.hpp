#pragma once
// The RTMDet detector as the host sees it: LibreYOLO's LibreRTMDetModel, with backbone, neck and
// head registered as "backbone", "neck" and "head", so that state_dict keys are LibreYOLO's, e.g.
// backbone.stem.0.conv.weight, backbone.stage4.1.conv1.bn.running_mean, neck.out_convs.2.bn.weight,
// head.cls_convs.1.0.bn.bias, head.rtm_reg.2.bias.

#include <libreyolo/sdk/detector.hpp>

#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#include "head.hpp"
#include "network.hpp"

namespace libreyolo::families::rtmdet {

class RtmdetDetector : public sdk::Detector {
 public:
  // size t, s, m, l or x; num_classes >= 1 (std::invalid_argument otherwise).
  RtmdetDetector(const std::string& size, int64_t num_classes);

  // The whole network: {cls_P3, cls_P4, cls_P5, reg_P3, reg_P4, reg_P5}, cls [B, nc, H/s, W/s]
  // raw logits, reg [B, 4, H/s, W/s] float32 ltrb distances in input pixels, s = 8, 16, 32.
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override;

  // Boxes [B, N, 4] xyxy in input pixels, scores [B, N, nc] sigmoid with the per-level
  // nms_pre top-k applied (decode.hpp).
  sdk::Candidates decode(const std::vector<torch::Tensor>& outputs) override;

  const std::string& size() const { return size_; }
  int64_t num_classes() const { return num_classes_; }
  bool exp_on_reg() const { return head->exp_on_reg(); }

  std::shared_ptr<CSPNeXt> backbone;
  std::shared_ptr<CSPNeXtPAFPN> neck;
  std::shared_ptr<RTMDetSepBNHead> head;

 private:
  std::string size_;
  int64_t num_classes_;
};

}  // namespace libreyolo::families::rtmdet
