#include "libreyolo/sdk/targets.hpp"

#include <torch/torch.h>

#include <algorithm>

namespace libreyolo::sdk {

torch::Tensor valid_mask(const Targets& targets) {
  auto rows = torch::arange(targets.max_boxes(), targets.counts.options());
  return rows.unsqueeze(0) < targets.counts.unsqueeze(1);
}

std::vector<int64_t> counts_on_host(const Targets& targets) {
  if (!targets.host_counts.empty()) return targets.host_counts;
  const auto counts = targets.counts.to(torch::kCPU, torch::kInt64).contiguous();
  return {counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + counts.numel()};
}

Targets pad_targets(const std::vector<torch::Tensor>& per_image, const torch::Device& device) {
  int64_t max_boxes = 1;  // at least one row so shapes never collapse to zero
  for (const auto& boxes : per_image) max_boxes = std::max<int64_t>(max_boxes, boxes.size(0));
  const auto batch = static_cast<int64_t>(per_image.size());
  auto padded = torch::zeros({batch, max_boxes, 5}, torch::kFloat32);
  auto counts = torch::zeros({batch}, torch::kInt64);
  std::vector<int64_t> host_counts(per_image.size(), 0);
  for (int64_t i = 0; i < batch; ++i) {
    const auto& boxes = per_image[static_cast<size_t>(i)];
    if (boxes.size(0) == 0) continue;
    TORCH_CHECK(boxes.dim() == 2 && boxes.size(1) == 5,
                "pad_targets: image ", i, " has boxes of shape ", boxes.sizes(),
                ", expected [n, 5] (class, cx, cy, w, h)");
    padded[i].narrow(0, 0, boxes.size(0)).copy_(boxes.to(torch::kFloat32));
    counts[i] = boxes.size(0);
    host_counts[static_cast<size_t>(i)] = boxes.size(0);
  }
  return {padded.to(device), counts.to(device), std::move(host_counts)};
}

}  // namespace libreyolo::sdk
