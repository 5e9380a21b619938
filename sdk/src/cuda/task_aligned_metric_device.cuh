#pragma once
// The fused task-aligned metric's per-(b, m, a) work (task_aligned_metric_kernels.cu launches
// it), written once for the device and the host, so that a unit test runs it on the CPU against
// the composed ops (tests/unit/sdk/test_task_aligned_metric.cpp).
//
// Bit equality with the composed ops: every step below is the one PyTorch's kernel computes, in
// float32, rounded once per operation (float_ops.cuh); minimum, maximum and the clamps propagate
// NaN as PyTorch's do; pow follows PyTorch's special cases (PowerKind).
#include <cmath>
#include <cstdint>

#include "float_ops.cuh"
#include "host_device.cuh"
#include "task_aligned_metric_kernels.hpp"

namespace libreyolo::sdk::fused::tam {

using ops::add;
using ops::div;
using ops::maximum;
using ops::minimum;
using ops::mul;
using ops::sub;

// clamp_min(x, lo) and clamp(x, lo, hi): NaN stays NaN.
LIBREYOLO_HOST_DEVICE inline float clamp_min(float x, float lo) { return x != x ? x : fmaxf(x, lo); }
LIBREYOLO_HOST_DEVICE inline float clamp(float x, float lo, float hi) { return x != x ? x : fminf(fmaxf(x, lo), hi); }

LIBREYOLO_HOST_DEVICE inline float square_root(float x) {
#ifdef __CUDA_ARCH__
  return __fsqrt_rn(x);
#else
  return sqrtf(x);  // IEEE's correctly rounded square root, as __fsqrt_rn
#endif
}

LIBREYOLO_HOST_DEVICE inline float power(float x, PowerKind kind, float p) {
  switch (kind) {
    case PowerKind::identity: return x;
    case PowerKind::square_root: return square_root(x);
    case PowerKind::square: return mul(x, x);
    case PowerKind::cube: return mul(mul(x, x), x);
    default: return powf(x, p);
  }
}

struct Box {
  float x1, y1, x2, y2;
};

LIBREYOLO_HOST_DEVICE inline Box load_box(const float* p) { return {p[0], p[1], p[2], p[3]}; }

// What box_iou needs of one box besides its corners, computed once per box (the kernel pairs
// each prediction with every gt row and each gt row with every anchor): its sides, its area and,
// for CIoU, its angle term. The same operations as computing them per pair, so the same bits.
struct BoxTerms {
  Box box;
  float w, h, area, angle;
};

LIBREYOLO_HOST_DEVICE inline BoxTerms terms_of(const Box& b, const AlignedMetricShape& s) {
  const float w = sub(b.x2, b.x1), h = sub(b.y2, b.y1);
  return {b, w, h, mul(w, h), s.iou_kind == MetricIoU::ciou ? atanf(div(w, add(h, s.eps))) : 0.f};
}

// box_ops.cpp's box_iou(a, b, kind, eps) for one pair, step for step.
LIBREYOLO_HOST_DEVICE inline float box_iou(const BoxTerms& ta, const BoxTerms& tb, const AlignedMetricShape& s) {
  const Box& a = ta.box;
  const Box& b = tb.box;
  const float ox = clamp_min(sub(minimum(a.x2, b.x2), maximum(a.x1, b.x1)), 0.f);
  const float oy = clamp_min(sub(minimum(a.y2, b.y2), maximum(a.y1, b.y1)), 0.f);
  const float inter = mul(ox, oy);
  const float uni = sub(add(ta.area, tb.area), inter);
  const float iou = div(inter, add(uni, s.eps));
  if (s.iou_kind == MetricIoU::iou) return iou;
  const float ew = sub(maximum(a.x2, b.x2), minimum(a.x1, b.x1));
  const float eh = sub(maximum(a.y2, b.y2), minimum(a.y1, b.y1));
  if (s.iou_kind == MetricIoU::giou) {
    const float area = add(mul(ew, eh), s.eps);
    return sub(iou, div(sub(area, uni), area));
  }
  const float diagonal = add(add(mul(ew, ew), mul(eh, eh)), s.eps);
  const float cx = sub(add(a.x1, a.x2), add(b.x1, b.x2));
  const float cy = sub(add(a.y1, a.y2), add(b.y1, b.y2));
  const float centre_distance = mul(add(mul(cx, cx), mul(cy, cy)), 0.25f);
  const float diou = sub(iou, div(centre_distance, diagonal));
  if (s.iou_kind == MetricIoU::diou) return diou;
  const float angle = sub(ta.angle, tb.angle);
  const float v = mul(mul(angle, angle), s.four_over_pi_squared);
  const float alpha = div(v, add(sub(v, iou), s.one_plus_eps));
  return sub(diou, mul(alpha, v));
}

// task_aligned_assigner.cpp's candidate test: the anchor point inside the gt box and, with a
// distance limit, its farthest side within max_distance strides.
LIBREYOLO_HOST_DEVICE inline bool candidate(const Box& gt, float ax, float ay, float stride,
                                            const AlignedMetricShape& s) {
  const float to_left = sub(ax, gt.x1), to_right = sub(gt.x2, ax);
  const float to_top = sub(ay, gt.y1), to_bottom = sub(gt.y2, ay);
  const bool inside = minimum(minimum(to_left, to_right), minimum(to_top, to_bottom)) >= 0.f;
  if (!s.limit_distance) return inside;
  const float farthest = div(maximum(maximum(to_left, to_right), maximum(to_top, to_bottom)), stride);
  return inside && farthest <= s.max_distance;
}

// One gt row (b * rows + m) as every pair of it reads it.
struct RowTerms {
  BoxTerms gt;
  int64_t label;
  bool valid;
};

LIBREYOLO_HOST_DEVICE inline RowTerms row_terms(const AlignedMetricShape& s, const AlignedMetricInputs& in,
                                                int64_t row) {
  return {terms_of(load_box(in.gt_boxes + row * 4), s), in.labels[row], in.gt_valid[row]};
}

// One anchor a of image b as every pair of it reads it.
struct AnchorTerms {
  BoxTerms pred;
  float x, y, stride;
};

LIBREYOLO_HOST_DEVICE inline AnchorTerms anchor_terms(const AlignedMetricShape& s, const AlignedMetricInputs& in,
                                                      int64_t b, int64_t a) {
  return {terms_of(load_box(in.pred_boxes + (b * s.anchors + a) * 4), s), in.anchor_points[2 * a],
          in.anchor_points[2 * a + 1], in.anchor_strides[a]};
}

// The pair (row = b * rows + m, anchor a): the IoU, the metric and the candidates' metric, at
// item (row * anchors + a) of the outputs.
LIBREYOLO_HOST_DEVICE inline void metric_of(const AlignedMetricShape& s, const AlignedMetricInputs& in,
                                            const AlignedMetricOutputs& out, const RowTerms& r, int64_t row,
                                            const AnchorTerms& t, int64_t b, int64_t a) {
  const float valid_f = r.valid ? 1.f : 0.f;
  const bool is_candidate = r.valid && candidate(r.gt.box, t.x, t.y, t.stride, s);
  const float iou = clamp(box_iou(r.gt, t.pred, s), 0.f, 1.f);
  const float score = in.pred_scores[b * s.score_strides[0] + a * s.score_strides[1] + r.label * s.score_strides[2]];
  const float metric =
      mul(mul(power(score, s.score_power_kind, s.score_power), power(iou, s.iou_power_kind, s.iou_power)), valid_f);
  const int64_t i = row * s.anchors + a;
  out.iou[i] = iou;
  out.metric[i] = metric;
  out.candidate_metric[i] = mul(metric, is_candidate ? 1.f : 0.f);
}

// Item i = (b * rows + m) * anchors + a on its own (the host's test walks the items this way).
LIBREYOLO_HOST_DEVICE inline void metric_of_pair(const AlignedMetricShape& s, const AlignedMetricInputs& in,
                                                 const AlignedMetricOutputs& out, int64_t i) {
  const int64_t a = i % s.anchors, row = i / s.anchors, b = row / s.rows;
  metric_of(s, in, out, row_terms(s, in, row), row, anchor_terms(s, in, b, a), b, a);
}

}  // namespace libreyolo::sdk::fused::tam
