#include "libreyolo/core/eval/nms.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <thread>

#include "class_nms.hpp"
#include "top_scoring_detections.hpp"

namespace libreyolo::core::eval {

std::vector<int64_t> greedy_nms(const torch::Tensor& boxes, const torch::Tensor& scores, float iou) {
  const auto* b = boxes.data_ptr<float>();
  const auto* s = scores.data_ptr<float>();
  std::vector<detail::ScoredBox> rows(static_cast<size_t>(boxes.size(0)));
  for (size_t k = 0; k < rows.size(); ++k) rows[k] = {b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3], s[k], 0};
  const auto kept = detail::greedy_nms_one_class(rows, iou);
  return {kept.begin(), kept.end()};
}

namespace {

struct Candidates {
  torch::Tensor anchor, score, class_id;  // anchor indices (on the input's device), CPU score and class
};

// The selection and the confidence filter run where the tensors are (the GPU during training);
// only the survivors travel to the host.
Candidates select_candidates(const torch::Tensor& boxes, const torch::Tensor& scores, const NmsOptions& options) {
  const auto finite_box = torch::isfinite(boxes).all(1);
  if (!options.multi_label) {
    auto [best_score, best_class] = scores.max(1);
    const auto keep = (best_score > options.conf) & torch::isfinite(best_score) & finite_box;
    const auto anchor = keep.nonzero().squeeze(1);
    return {anchor, best_score.index_select(0, anchor).to(torch::kCPU).contiguous(),
            best_class.index_select(0, anchor).to(torch::kCPU).contiguous()};
  }
  const auto pairs = ((scores > options.conf) & torch::isfinite(scores) & finite_box.unsqueeze(1)).nonzero();
  auto anchor = pairs.select(1, 0);
  auto class_id = pairs.select(1, 1);
  auto score = scores.index({anchor, class_id});
  const int64_t cap = std::max(options.max_det, options.max_candidates);
  if (score.size(0) > cap) {
    const auto top = std::get<1>(score.topk(cap));
    anchor = anchor.index_select(0, top);
    class_id = class_id.index_select(0, top);
    score = score.index_select(0, top);
  }
  return {anchor.contiguous(), score.to(torch::kCPU).contiguous(), class_id.to(torch::kCPU).contiguous()};
}

}  // namespace

namespace {

// One image's candidates on the host: mapped to original pixels, clipped, empty boxes dropped.
std::vector<detail::ScoredBox> host_candidates(const torch::Tensor& boxes, const torch::Tensor& scores,
                                               const InputToOriginal& m, const NmsOptions& options) {
  auto [idx, s, c] = select_candidates(boxes, scores, options);
  auto b = boxes.index_select(0, idx).to(torch::kCPU, torch::kFloat32).contiguous();
  const auto* pb = b.data_ptr<float>();
  const auto* ps = s.data_ptr<float>();
  const auto* pc = c.data_ptr<int64_t>();
  const auto to_x = [&](float x) {
    return std::clamp(static_cast<float>((x - m.pad_x) / m.scale_x), 0.f, static_cast<float>(m.original_width));
  };
  const auto to_y = [&](float y) {
    return std::clamp(static_cast<float>((y - m.pad_y) / m.scale_y), 0.f, static_cast<float>(m.original_height));
  };
  std::vector<detail::ScoredBox> out;
  out.reserve(static_cast<size_t>(b.size(0)));
  for (int64_t k = 0; k < b.size(0); ++k) {
    const float* r = pb + 4 * k;
    const detail::ScoredBox box{to_x(r[0]), to_y(r[1]), to_x(r[2]), to_y(r[3]), ps[k], static_cast<int>(pc[k])};
    if (box.x2 > box.x1 && box.y2 > box.y1) out.push_back(box);
  }
  return out;
}

// Per-class NMS of one image, then its max_det highest scores (ties in class order).
std::vector<Detection> image_detections(const std::vector<detail::ScoredBox>& candidates, const NmsOptions& options) {
  std::vector<Detection> out;
  for (int k : detail::greedy_nms_per_class(candidates, options.iou)) {
    const auto& box = candidates[static_cast<size_t>(k)];
    out.push_back({{box.x1, box.y1, box.x2, box.y2}, box.score, box.class_id});
  }
  std::stable_sort(out.begin(), out.end(), [](const Detection& x, const Detection& y) { return x.score > y.score; });
  if (static_cast<int>(out.size()) > options.max_det) out.resize(static_cast<size_t>(options.max_det));
  return out;
}

// NMS is the CPU's part of validation: an unconfident model (early training, conf 0.001) can
// bring tens of thousands of candidates per image, so images run on several threads.
int nms_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(cores, 1u, 16u));
}

}  // namespace

std::vector<std::vector<Detection>> postprocess_detections(
    const torch::Tensor& boxes, const torch::Tensor& scores,
    const std::vector<InputToOriginal>& mapping, const NmsOptions& options) {
  TORCH_CHECK(boxes.dim() == 3 && boxes.size(2) == 4, "boxes must be [B, N, 4], got ", boxes.sizes());
  TORCH_CHECK(scores.dim() == 3 && scores.size(1) == boxes.size(1), "scores must be [B, N, C]");
  TORCH_CHECK(static_cast<int64_t>(mapping.size()) == boxes.size(0), "one mapping per image");
  const auto all_scores = scores.to(torch::kFloat32);
  if (!options.suppress) return top_scoring_detections(boxes, all_scores, mapping, options);
  // The selection runs where the tensors are, image by image; NMS on plain arrays, in parallel.
  std::vector<std::vector<detail::ScoredBox>> candidates(mapping.size());
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    candidates[static_cast<size_t>(i)] = host_candidates(boxes[i], all_scores[i], mapping[static_cast<size_t>(i)], options);
  }
  std::vector<std::vector<Detection>> results(mapping.size());
  detail::parallel_for(static_cast<int>(mapping.size()), nms_threads(), [&](int i) {
    results[static_cast<size_t>(i)] = image_detections(candidates[static_cast<size_t>(i)], options);
  });
  return results;
}

}  // namespace libreyolo::core::eval
