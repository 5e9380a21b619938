#pragma once
// The fused SimOTA cost's per-(image, anchor) work (simota_cost_kernels.cu launches it), written
// once for the device and the host: nvcc compiles it into the kernel; a C++ compiler compiles it
// for the unit test that runs it on the CPU against the composed ops (tests/unit/sdk/
// test_simota_cost.cpp), so CI checks the kernel's logic without a GPU.
//
// Bit equality with the composed ops (simota_cost.cpp): every step is the one PyTorch's kernel
// computes, in float32, rounded once per operation (float_ops.cuh); minimum and maximum let a
// NaN win as torch::min/max do; BCE's clamp at -100 is std::max's (a NaN log stays NaN), with the
// math library's logf and log1pf, as PyTorch's binary_cross_entropy kernel computes it.
#include <cmath>
#include <cstdint>

#include "float_ops.cuh"
#include "host_device.cuh"
#include "simota_cost_kernels.hpp"

namespace libreyolo::sdk::fused::simota {

LIBREYOLO_HOST_DEVICE inline float std_max(float a, float b) { return a < b ? b : a; }

using ops::add;
using ops::div;
using ops::maximum;
using ops::minimum;
using ops::mul;
using ops::sub;

// PyTorch's binary_cross_entropy for one element with a constant target (0 or 1).
LIBREYOLO_HOST_DEVICE inline float bce(float input, float target) {
  const float log_input = std_max(logf(input), -100.f);
  const float log_one_minus = std_max(log1pf(-input), -100.f);
  return sub(mul(sub(target, 1.f), log_one_minus), mul(target, log_input));
}

struct Box {
  float cx, cy, w, h;
};

LIBREYOLO_HOST_DEVICE inline Box load_box(const float* p) { return {p[0], p[1], p[2], p[3]}; }

struct Anchor {
  float centre_x, centre_y, radius;
};

// (grid + 0.5) * stride and stride * center_radius.
LIBREYOLO_HOST_DEVICE inline Anchor load_anchor(const SimOtaCostInputs& in, int64_t a, const SimOtaCostShape& s) {
  const float stride = in.strides[a];
  return {mul(add(in.grid[2 * a], 0.5f), stride), mul(add(in.grid[2 * a + 1], 0.5f), stride),
          mul(stride, s.center_radius)};
}

// The anchor's centre strictly inside the gt's centre square (the caller checks the row is real).
LIBREYOLO_HOST_DEVICE inline bool in_centre(const Box& gt, const Anchor& an) {
  return sub(an.centre_x, sub(gt.cx, an.radius)) > 0.f && sub(add(gt.cx, an.radius), an.centre_x) > 0.f &&
         sub(an.centre_y, sub(gt.cy, an.radius)) > 0.f && sub(add(gt.cy, an.radius), an.centre_y) > 0.f;
}

// simota_cost.cpp's pairwise_iou_cxcywh for one (gt, prediction) pair, step for step (a division
// by 2 is a multiplication by 0.5: both exact, and PyTorch's CUDA division by a scalar multiplies
// by its reciprocal).
LIBREYOLO_HOST_DEVICE inline float iou_cxcywh(const Box& g, const Box& p) {
  const float ghw = mul(g.w, 0.5f), ghh = mul(g.h, 0.5f), phw = mul(p.w, 0.5f), phh = mul(p.h, 0.5f);
  const float left = maximum(sub(g.cx, ghw), sub(p.cx, phw));
  const float right = minimum(add(g.cx, ghw), add(p.cx, phw));
  const float top = maximum(sub(g.cy, ghh), sub(p.cy, phh));
  const float bottom = minimum(add(g.cy, ghh), add(p.cy, phh));
  const float overlaps = (left < right && top < bottom) ? 1.f : 0.f;
  const float intersection = mul(mul(sub(right, left), sub(bottom, top)), overlaps);
  return div(intersection, sub(add(mul(g.w, g.h), mul(p.w, p.h)), intersection));
}

// Everything for image b and anchor a (i = b * anchors + a): the candidate flag, then each gt
// row's IoU and cost, stored at consecutive anchors of the row.
LIBREYOLO_HOST_DEVICE inline void cost_of_anchor(const SimOtaCostShape& s, const SimOtaCostInputs& in,
                                                 const SimOtaCostOutputs& out, int64_t i) {
  const int64_t a = i % s.anchors, b = i / s.anchors;
  const Anchor anchor = load_anchor(in, a, s);
  bool candidate = false;
  for (int64_t m = 0; m < s.rows && !candidate; ++m)
    candidate = in.gt_valid[b * s.rows + m] && in_centre(load_box(in.gt_boxes + (b * s.rows + m) * 4), anchor);
  out.candidates[i] = candidate;
  const Box pred = load_box(in.pred_boxes + i * 4);
  const float negative_sum = in.negative_sum[i];
  const float* scores = in.pred_scores + b * s.score_strides[0] + a * s.score_strides[1];
  for (int64_t m = 0; m < s.rows; ++m) {
    const int64_t row = b * s.rows + m, at = row * s.anchors + a;
    const bool pair_valid = in.gt_valid[row] && candidate;
    const Box gt = load_box(in.gt_boxes + row * 4);
    const float iou = pair_valid ? iou_cxcywh(gt, pred) : 0.f;
    const float iou_cost = -logf(add(iou, s.log_epsilon));
    const float score = scores[in.labels[row] * s.score_strides[2]];
    const float class_cost = add(negative_sum, sub(bce(score, 1.f), bce(score, 0.f)));
    const float outside = (in.gt_valid[row] && in_centre(gt, anchor)) ? 0.f : 1.f;
    const float cost = add(add(class_cost, mul(iou_cost, s.iou_weight)), mul(s.outside_center_cost, outside));
    out.iou[at] = iou;
    out.cost[at] = pair_valid ? cost : INFINITY;  // <cmath>'s float +inf, usable on both sides
  }
}

}  // namespace libreyolo::sdk::fused::simota
