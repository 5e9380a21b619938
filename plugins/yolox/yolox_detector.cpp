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

void YoloxDetector::on_epoch_start(const sdk::EpochContext& context) {
  const bool want = !context.augmenting;
  if (want == l1_->on) return;
  l1_->on = want;
  announce_capture_change(std::string("YOLOX: L1 loss on raw box outputs switched ") + (want ? "on" : "off") +
                          " at epoch " + std::to_string(context.epoch + 1) +
                          (want ? " (augmentation stopped)" : " (augmentation running)"));
}

}  // namespace libreyolo::families::yolox
