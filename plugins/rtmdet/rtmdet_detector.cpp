#include "rtmdet_detector.hpp"

#include <torch/torch.h>

#include <stdexcept>

#include "decode.hpp"

namespace libreyolo::families::rtmdet {

namespace {

// Checked before anything is built: a bad class count should not cost building the backbone.
int64_t checked_num_classes(int64_t num_classes) {
  if (num_classes < 1)
    throw std::invalid_argument("RTMDet: num_classes must be at least 1, got " + std::to_string(num_classes));
  return num_classes;
}

}  // namespace

RtmdetDetector::RtmdetDetector(const std::string& size, int64_t num_classes)
    : size_(size), num_classes_(checked_num_classes(num_classes)) {
  const auto& config = size_config(size);
  backbone = register_module("backbone", std::make_shared<CSPNeXt>(config));
  neck = register_module("neck", std::make_shared<CSPNeXtPAFPN>(config));
  head = register_module("head", std::make_shared<RTMDetSepBNHead>(num_classes, config.neck_out, config.exp_on_reg));
}

std::vector<torch::Tensor> RtmdetDetector::forward_capturable(const torch::Tensor& images) {
  return head->forward(neck->forward(backbone->forward(images)));
}

sdk::Candidates RtmdetDetector::decode(const std::vector<torch::Tensor>& outputs) {
  return decode_outputs(outputs, num_classes_, kNmsPre, kStrides);
}

}  // namespace libreyolo::families::rtmdet
