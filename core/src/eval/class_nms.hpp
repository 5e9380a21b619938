#pragma once
// Per-class greedy NMS on plain arrays, the CPU half of postprocess_detections (nms.cpp). Kept
// free of LibTorch so images can run on worker threads.

#include <vector>

namespace libreyolo::core::eval::detail {

struct ScoredBox {
  float x1, y1, x2, y2;
  float score;
  int class_id;
};

// Greedy NMS of one class's boxes, exactly as the textbook loop: by descending score (ties in
// input order), each box not yet suppressed is kept and suppresses every later one whose IoU
// with it exceeds `iou`. Returns the kept positions of `boxes` in that order. Only boxes that
// overlap the kept one along x are compared (a box without x-overlap has IoU 0, which never
// exceeds a threshold >= 0), which turns the all-pairs scan into a neighbour scan; the result is
// the same as comparing every pair.
std::vector<int> greedy_nms_one_class(const std::vector<ScoredBox>& boxes, float iou);

// Every class of `boxes` on its own (classes in ascending order, each in greedy_nms_one_class's
// order): the positions kept.
std::vector<int> greedy_nms_per_class(const std::vector<ScoredBox>& boxes, float iou);

// Calls work(i) for i in [0, count) on up to `threads` threads (the calling one included).
template <class Work>
void parallel_for(int count, int threads, const Work& work);

}  // namespace libreyolo::core::eval::detail

#include "class_nms_parallel.inl"
