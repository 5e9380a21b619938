#include "yolo9_detector.hpp"

#include <torch/torch.h>

namespace libreyolo::families::yolo9 {

Yolo9Detector::Yolo9Detector(const std::string& size, int64_t num_classes)
    : size_(size), num_classes_(num_classes) {
  const auto& config = size_config(size);
  backbone = register_module("backbone", Backbone9(config));
  neck = register_module("neck", Neck9(config));
  head = register_module("head", DDetect(num_classes, config.head_channels, kRegMax));
}

std::vector<torch::Tensor> Yolo9Detector::forward_capturable(const torch::Tensor& images) {
  const auto features = neck->forward(backbone->forward(images));
  return head->forward({features[0], features[1], features[2]});
}

sdk::Candidates Yolo9Detector::decode(const std::vector<torch::Tensor>& outputs) {
  auto [boxes, scores] = decode_outputs(outputs, num_classes_, kRegMax, kStrides);
  return {boxes, scores};
}

}  // namespace libreyolo::families::yolo9
