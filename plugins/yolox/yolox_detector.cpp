#include "yolox_detector.hpp"

#include <torch/torch.h>

namespace libreyolo::families::yolox {

YoloxDetector::YoloxDetector(const std::string& size, int64_t num_classes) : size_(size), num_classes_(num_classes) {
  const auto& config = size_config(size);
  backbone = register_module("backbone", std::make_shared<YOLOPAFPN>(config));
  head = register_module("head", std::make_shared<YOLOXHead>(num_classes, config.level_channels(),
                                                             config.head_channels(), config.depthwise));
}

std::vector<torch::Tensor> YoloxDetector::forward_capturable(const torch::Tensor& images) {
  return head->forward(backbone->forward(images));
}

sdk::Candidates YoloxDetector::decode(const std::vector<torch::Tensor>& outputs) {
  auto [boxes, scores] = decode_outputs(outputs, num_classes_, kStrides);
  return {boxes, scores};
}

void YoloxDetector::on_scheduled_change(const std::string& event) {
  if (event == kL1LossOn) l1_->on = true;
}

}  // namespace libreyolo::families::yolox
