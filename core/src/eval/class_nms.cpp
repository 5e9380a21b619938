#include "class_nms.hpp"

#include <algorithm>
#include <numeric>

namespace libreyolo::core::eval::detail {

namespace {

// The IoU test of the textbook loop, with its float operations in its order, so that pruning
// the comparisons cannot change a single decision.
bool overlaps_more_than(const ScoredBox& a, const ScoredBox& c, float area_a, float iou) {
  const float w = std::max(0.f, std::min(a.x2, c.x2) - std::max(a.x1, c.x1));
  const float h = std::max(0.f, std::min(a.y2, c.y2) - std::max(a.y1, c.y1));
  const float inter = w * h;
  const float area_c = (c.x2 - c.x1) * (c.y2 - c.y1);
  return inter / (area_a + area_c - inter) > iou;
}

}  // namespace

std::vector<int> greedy_nms_one_class(const std::vector<ScoredBox>& boxes, float iou) {
  const int n = static_cast<int>(boxes.size());
  std::vector<int> order(static_cast<size_t>(n));  // rank -> position, by descending score
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return boxes[a].score > boxes[b].score; });
  std::vector<int> rank(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) rank[static_cast<size_t>(order[r])] = r;
  std::vector<int> by_x1 = order;  // positions by ascending x1: the neighbour index
  std::sort(by_x1.begin(), by_x1.end(), [&](int a, int b) { return boxes[a].x1 < boxes[b].x1; });
  float widest = 0.f;
  for (const auto& box : boxes) widest = std::max(widest, box.x2 - box.x1);
  // A negative threshold suppresses boxes without overlap too: then every pair is compared.
  const bool prune = iou >= 0.f;
  std::vector<char> suppressed(static_cast<size_t>(n), 0);
  std::vector<int> keep;
  for (int r = 0; r < n; ++r) {
    const int a = order[static_cast<size_t>(r)];
    if (suppressed[static_cast<size_t>(a)]) continue;
    keep.push_back(a);
    const ScoredBox& box = boxes[static_cast<size_t>(a)];
    const float area_a = (box.x2 - box.x1) * (box.y2 - box.y1);
    // Boxes starting at or right of box.x2 cannot overlap it; neither can those ending left of
    // box.x1, i.e. starting before box.x1 - widest (with a pixel of slack for rounding).
    auto first = by_x1.begin(), last = by_x1.end();
    if (prune) {
      const float from = box.x1 - widest - 1.f - 1e-4f * widest;
      first = std::lower_bound(by_x1.begin(), by_x1.end(), from,
                               [&](int p, float x) { return boxes[static_cast<size_t>(p)].x1 < x; });
      last = std::lower_bound(first, by_x1.end(), box.x2,
                              [&](int p, float x) { return boxes[static_cast<size_t>(p)].x1 < x; });
    }
    for (auto it = first; it != last; ++it) {
      const int c = *it;
      if (rank[static_cast<size_t>(c)] <= r || suppressed[static_cast<size_t>(c)]) continue;
      if (overlaps_more_than(box, boxes[static_cast<size_t>(c)], area_a, iou)) suppressed[static_cast<size_t>(c)] = 1;
    }
  }
  return keep;
}

std::vector<int> greedy_nms_per_class(const std::vector<ScoredBox>& boxes, float iou) {
  std::vector<int> rows(boxes.size());
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) { return boxes[a].class_id < boxes[b].class_id; });
  std::vector<int> keep;
  std::vector<ScoredBox> group;
  for (size_t start = 0; start < rows.size();) {
    size_t end = start;
    group.clear();
    while (end < rows.size() && boxes[static_cast<size_t>(rows[end])].class_id == boxes[static_cast<size_t>(rows[start])].class_id) {
      group.push_back(boxes[static_cast<size_t>(rows[end])]);
      ++end;
    }
    for (int k : greedy_nms_one_class(group, iou)) keep.push_back(rows[start + static_cast<size_t>(k)]);
    start = end;
  }
  return keep;
}

}  // namespace libreyolo::core::eval::detail
