#include "libreyolo/core/eval/nms.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

namespace libreyolo::core::eval {

std::vector<int64_t> greedy_nms(const torch::Tensor& boxes, const torch::Tensor& scores, float iou) {
  const auto n = boxes.size(0);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  const auto* s = scores.data_ptr<float>();
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return s[a] > s[b]; });
  const auto* b = boxes.data_ptr<float>();
  std::vector<char> suppressed(static_cast<size_t>(n), 0);
  std::vector<int64_t> keep;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto a = order[i];
    if (suppressed[static_cast<size_t>(a)]) continue;
    keep.push_back(a);
    const float ax1 = b[4 * a], ay1 = b[4 * a + 1], ax2 = b[4 * a + 2], ay2 = b[4 * a + 3];
    const float area_a = (ax2 - ax1) * (ay2 - ay1);
    for (size_t j = i + 1; j < order.size(); ++j) {
      const auto c = order[j];
      if (suppressed[static_cast<size_t>(c)]) continue;
      const float w = std::max(0.f, std::min(ax2, b[4 * c + 2]) - std::max(ax1, b[4 * c]));
      const float h = std::max(0.f, std::min(ay2, b[4 * c + 3]) - std::max(ay1, b[4 * c + 1]));
      const float inter = w * h;
      const float area_c = (b[4 * c + 2] - b[4 * c]) * (b[4 * c + 3] - b[4 * c + 1]);
      if (inter / (area_a + area_c - inter) > iou) suppressed[static_cast<size_t>(c)] = 1;
    }
  }
  return keep;
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

std::vector<std::vector<Detection>> postprocess_detections(
    const torch::Tensor& boxes, const torch::Tensor& scores,
    const std::vector<InputToOriginal>& mapping, const NmsOptions& options) {
  TORCH_CHECK(boxes.dim() == 3 && boxes.size(2) == 4, "boxes must be [B, N, 4], got ", boxes.sizes());
  TORCH_CHECK(scores.dim() == 3 && scores.size(1) == boxes.size(1), "scores must be [B, N, C]");
  TORCH_CHECK(static_cast<int64_t>(mapping.size()) == boxes.size(0), "one mapping per image");
  const auto all_scores = scores.to(torch::kFloat32);
  std::vector<std::vector<Detection>> results(mapping.size());
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    auto [idx, s, c] = select_candidates(boxes[i], all_scores[i], options);
    auto b = boxes[i].index_select(0, idx).to(torch::kCPU, torch::kFloat32).contiguous();
    const auto& m = mapping[static_cast<size_t>(i)];
    // Map to original pixels and clip.
    auto* pb = b.data_ptr<float>();
    for (int64_t k = 0; k < b.size(0); ++k) {
      float* r = pb + 4 * k;
      r[0] = std::clamp(static_cast<float>((r[0] - m.pad_x) / m.scale), 0.f, static_cast<float>(m.original_width));
      r[1] = std::clamp(static_cast<float>((r[1] - m.pad_y) / m.scale), 0.f, static_cast<float>(m.original_height));
      r[2] = std::clamp(static_cast<float>((r[2] - m.pad_x) / m.scale), 0.f, static_cast<float>(m.original_width));
      r[3] = std::clamp(static_cast<float>((r[3] - m.pad_y) / m.scale), 0.f, static_cast<float>(m.original_height));
    }
    // Per-class NMS on non-empty boxes.
    const auto* pc = c.data_ptr<int64_t>();
    const auto* ps = s.data_ptr<float>();
    std::vector<int64_t> rows(static_cast<size_t>(b.size(0)));
    std::iota(rows.begin(), rows.end(), int64_t{0});
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](int64_t k) { return !(pb[4 * k + 2] > pb[4 * k] && pb[4 * k + 3] > pb[4 * k + 1]); }),
               rows.end());
    std::stable_sort(rows.begin(), rows.end(), [&](int64_t x, int64_t y) { return pc[x] < pc[y]; });
    auto& out = results[static_cast<size_t>(i)];
    for (size_t start = 0; start < rows.size();) {
      size_t end = start;
      while (end < rows.size() && pc[rows[end]] == pc[rows[start]]) ++end;
      const auto group = torch::tensor(std::vector<int64_t>(rows.begin() + static_cast<std::ptrdiff_t>(start),
                                                             rows.begin() + static_cast<std::ptrdiff_t>(end)));
      const auto kept = greedy_nms(b.index_select(0, group).contiguous(), s.index_select(0, group).contiguous(), options.iou);
      for (auto k : kept) {
        const auto row = rows[start + static_cast<size_t>(k)];
        out.push_back({{pb[4 * row], pb[4 * row + 1], pb[4 * row + 2], pb[4 * row + 3]}, ps[row],
                       static_cast<int>(pc[row])});
      }
      start = end;
    }
    std::stable_sort(out.begin(), out.end(), [](const Detection& x, const Detection& y) { return x.score > y.score; });
    if (static_cast<int>(out.size()) > options.max_det) out.resize(static_cast<size_t>(options.max_det));
  }
  return results;
}

}  // namespace libreyolo::core::eval
