#include "top_scoring_detections.hpp"

#include <torch/torch.h>

#include <algorithm>

namespace libreyolo::core::eval {
namespace {

std::vector<Detection> one_image(const torch::Tensor& boxes, const torch::Tensor& scores, const InputToOriginal& m,
                                 const NmsOptions& options) {
  const int64_t classes = scores.size(1);
  const auto flat = scores.reshape({-1});
  const int64_t k = std::min<int64_t>(options.max_det, flat.numel());
  auto [top_scores, top_index] = flat.topk(k);  // sorted, highest first
  const auto keep = top_scores > options.conf;
  top_scores = top_scores.masked_select(keep);
  top_index = top_index.masked_select(keep);
  const auto query = top_index.div(classes, "floor");
  const auto picked = boxes.index_select(0, query).to(torch::kCPU, torch::kFloat32).contiguous();
  const auto s = top_scores.to(torch::kCPU, torch::kFloat32).contiguous();
  const auto c = top_index.remainder(classes).to(torch::kCPU, torch::kInt64).contiguous();
  const float* b = picked.data_ptr<float>();
  std::vector<Detection> out;
  out.reserve(static_cast<size_t>(s.numel()));
  for (int64_t i = 0; i < s.numel(); ++i) {
    const float* r = b + 4 * i;
    Detection d;
    d.box = {(r[0] - m.pad_x) / m.scale_x, (r[1] - m.pad_y) / m.scale_y, (r[2] - m.pad_x) / m.scale_x,
             (r[3] - m.pad_y) / m.scale_y};
    d.score = s.data_ptr<float>()[i];
    d.class_id = static_cast<int>(c.data_ptr<int64_t>()[i]);
    out.push_back(d);
  }
  return out;
}

}  // namespace

std::vector<std::vector<Detection>> top_scoring_detections(const torch::Tensor& boxes, const torch::Tensor& scores,
                                                           const std::vector<InputToOriginal>& mapping,
                                                           const NmsOptions& options) {
  std::vector<std::vector<Detection>> results;
  results.reserve(mapping.size());
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    results.push_back(one_image(boxes[i], scores[i], mapping[static_cast<size_t>(i)], options));
  }
  return results;
}

}  // namespace libreyolo::core::eval
