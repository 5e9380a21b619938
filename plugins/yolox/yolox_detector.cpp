#include "yolox_detector.hpp"

#include <libreyolo/sdk/side_by_side.hpp>

#include <torch/torch.h>

namespace libreyolo::families::yolox {

YoloxDetector::YoloxDetector(const std::string& size, int64_t num_classes) : size_(size), num_classes_(num_classes) {
  const auto& config = size_config(size);
  backbone = register_module("backbone", std::make_shared<YOLOPAFPN>(config));
  head = register_module("head", std::make_shared<YOLOXHead>(num_classes, config.level_channels(),
                                                             config.head_channels(), config.depthwise));
}

std::vector<torch::Tensor> YoloxDetector::forward_capturable(const torch::Tensor& images) {
  const auto top = backbone->top_down(images);
  // P3's stem needs nothing from the bottom-up path: where fused_kernels (branch_streams or
  // level_streams) runs branches side by side, the GPU starts it from this point, beside that
  // path. It is called after the path, as without streams, so autograd adds the gradients in the
  // same order. Every level's towers follow, then every level's prediction convolutions together
  // (YOLOXHead::predict).
  const sdk::ForkPoint pan_out2_made({top.pan_out2}, sdk::BranchScope::level);
  const auto [pan_out1, pan_out0] = backbone->bottom_up(top);
  auto stem3 = pan_out2_made.start([&] { return head->stem(0, top.pan_out2); });
  const auto stems45 = sdk::side_by_side({pan_out1, pan_out0}, {[&] { return head->stem(1, pan_out1); },
                                                                [&] { return head->stem(2, pan_out0); }},
                                         sdk::BranchScope::level);
  const std::array<torch::Tensor, 3> stems{stem3.join(), stems45[0], stems45[1]};
  std::vector<std::array<torch::Tensor, 2>> towers;
  for (std::size_t level = 0; level < stems.size(); ++level) towers.push_back(head->towers(level, stems[level]));
  return head->predict(towers);
}

sdk::Candidates YoloxDetector::decode(const std::vector<torch::Tensor>& outputs) {
  auto [boxes, scores] = decode_outputs(outputs, num_classes_, kStrides);
  return {boxes, scores};
}

void YoloxDetector::on_scheduled_change(const std::string& event) {
  if (event == kL1LossOn) l1_->on = true;
}

}  // namespace libreyolo::families::yolox
