#include "yolo9_detector.hpp"

#include <libreyolo/sdk/side_by_side.hpp>
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
  const auto features = backbone->forward(images);
  const auto top = neck->top_down(features);
  // P3's head needs nothing from the bottom-up path: where fused_kernels (branch_streams or
  // level_streams) runs
  // branches side by side, the GPU starts it from this point, beside that path. It is called after
  // the path, as without streams, so autograd adds the gradients in the same order.
  const sdk::ForkPoint out3_made({top.out3}, sdk::BranchScope::level);
  const auto [out4, out5] = neck->bottom_up(top, features[2]);
  auto level3 = out3_made.start([&] { return head->forward_level(0, top.out3); });
  auto levels45 = sdk::side_by_side({out4, out5}, {[&] { return head->forward_level(1, out4); },
                                                   [&] { return head->forward_level(2, out5); }},
                                   sdk::BranchScope::level);
  return {level3.join(), levels45[0], levels45[1]};
}

sdk::Candidates Yolo9Detector::decode(const std::vector<torch::Tensor>& outputs) {
  auto [boxes, scores] = decode_outputs(outputs, num_classes_, kRegMax, kStrides);
  return {boxes, scores};
}

}  // namespace libreyolo::families::yolo9
