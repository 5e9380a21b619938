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
  // P3's head towers need nothing from the bottom-up path: where fused_kernels (branch_streams or
  // level_streams) runs branches side by side, the GPU starts them from this point, beside that
  // path. They are called after the path, as without streams, so autograd adds the gradients in
  // the same order. Every level's prediction convolutions then run together (DDetect::predict).
  const sdk::ForkPoint out3_made({top.out3}, sdk::BranchScope::level);
  const auto [out4, out5] = neck->bottom_up(top, features[2]);
  auto box3 = out3_made.start([&] { return head->box_features(0, top.out3); });
  auto class3 = out3_made.start([&] { return head->class_features(0, top.out3); });
  const auto towers45 = sdk::side_by_side({out4, out5},
                                          {[&] { return head->box_features(1, out4); },
                                           [&] { return head->class_features(1, out4); },
                                           [&] { return head->box_features(2, out5); },
                                           [&] { return head->class_features(2, out5); }},
                                          sdk::BranchScope::level);
  return head->predict({{box3.join(), class3.join()}, {towers45[0], towers45[1]}, {towers45[2], towers45[3]}});
}

sdk::Candidates Yolo9Detector::decode(const std::vector<torch::Tensor>& outputs) {
  auto [boxes, scores] = decode_outputs(outputs, num_classes_, kRegMax, kStrides);
  return {boxes, scores};
}

}  // namespace libreyolo::families::yolo9
