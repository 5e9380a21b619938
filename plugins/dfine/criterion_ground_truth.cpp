#include "criterion_ground_truth.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

namespace libreyolo::dfine {

CriterionGroundTruth criterion_ground_truth(const sdk::Targets& targets, int64_t height, int64_t width) {
  CriterionGroundTruth gt;
  // (w, h, w, h) built with fills on the device: copying a small CPU tensor to a CUDA device
  // would make the host wait for the stream.
  auto scale = torch::full({2, 2}, static_cast<double>(width), targets.boxes.options().dtype(torch::kFloat32));
  scale.select(1, 1).fill_(static_cast<double>(height));
  gt.labels = targets.boxes.select(2, 0).to(torch::kInt64);
  gt.boxes = (targets.boxes.narrow(2, 1, 4).to(torch::kFloat32) / scale.view({4})).clamp(0.0, 1.0);
  gt.counts = sdk::counts_on_host(targets);
  gt.max_count = gt.counts.empty() ? 0 : *std::max_element(gt.counts.begin(), gt.counts.end());
  const auto total = std::accumulate(gt.counts.begin(), gt.counts.end(), int64_t{0});
  gt.num_boxes = static_cast<double>(std::max<int64_t>(1, total));
  return gt;
}

}  // namespace libreyolo::dfine
