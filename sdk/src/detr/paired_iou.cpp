#include "libreyolo/sdk/detr/paired_iou.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::detr {

std::pair<torch::Tensor, torch::Tensor> paired_iou_giou(const torch::Tensor& a, const torch::Tensor& b) {
  constexpr double eps = 1e-6;
  auto area = [](const torch::Tensor& x) { return (x.select(-1, 2) - x.select(-1, 0)) * (x.select(-1, 3) - x.select(-1, 1)); };
  const auto lt = torch::max(a.narrow(-1, 0, 2), b.narrow(-1, 0, 2));
  const auto rb = torch::min(a.narrow(-1, 2, 2), b.narrow(-1, 2, 2));
  const auto wh = (rb - lt).clamp_min(0);
  const auto inter = wh.select(-1, 0) * wh.select(-1, 1);
  const auto uni = area(a) + area(b) - inter;
  const auto iou = inter / (uni + eps);
  const auto enclose_wh = (torch::max(a.narrow(-1, 2, 2), b.narrow(-1, 2, 2)) -
                           torch::min(a.narrow(-1, 0, 2), b.narrow(-1, 0, 2)))
                              .clamp_min(0);
  const auto enclose = enclose_wh.select(-1, 0) * enclose_wh.select(-1, 1);
  return {iou, iou - (enclose - uni) / (enclose + eps)};
}

}  // namespace libreyolo::sdk::detr
