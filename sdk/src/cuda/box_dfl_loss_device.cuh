#pragma once
// The fused box losses' per-anchor work (box_dfl_loss_kernels.cu launches it), written once for
// the device and the host, so that a unit test runs it on the CPU against the composed ops and
// their autograd (tests/unit/sdk/test_box_dfl_loss.cpp).
//
// Forward, per anchor: each side's distance decoded from its bins (softmax, expectation), the
// predicted box around the anchor point, CIoU with the target box (alpha a constant, as the
// composed ops detach it), the target's distances clamped to the bins, and the cross-entropy of
// each side's bins interpolated between the two bins around its target distance.
// Backward: the same quantities, then the chain rule by hand in the order autograd applies it
// (minimum and maximum split a tie's gradient in half; clamp_min passes it at the bound; a softmax's
// input gradient is p * (g - sum(p g))). Not the same bits as the composed ops (their softmax and
// sums group differently): equal within float32 rounding (the unit test's tolerance).
#include <cmath>
#include <cstdint>

#include "box_dfl_loss_kernels.hpp"
#include "host_device.cuh"

namespace libreyolo::sdk::fused::bdl {

struct Box {
  float x1, y1, x2, y2;
};

// One side's bins: max, log of the sum of exponentials, the decoded distance.
struct SideSoftmax {
  float max = 0, log_sum = 0, distance = 0;
};

LIBREYOLO_HOST_DEVICE inline int64_t logit_offset(const int64_t (&stride)[4], int64_t b, int64_t a, int k, int r) {
  return b * stride[0] + a * stride[1] + k * stride[2] + r * stride[3];
}

LIBREYOLO_HOST_DEVICE inline SideSoftmax side_softmax(const BoxDflShape& s, const float* logits, int64_t b, int64_t a,
                                                      int k) {
  SideSoftmax out;
  out.max = logits[logit_offset(s.logit_stride, b, a, k, 0)];
  for (int r = 1; r < s.bins; ++r) out.max = fmaxf(out.max, logits[logit_offset(s.logit_stride, b, a, k, r)]);
  float sum = 0, weighted = 0;
  for (int r = 0; r < s.bins; ++r) {
    const float e = expf(logits[logit_offset(s.logit_stride, b, a, k, r)] - out.max);
    sum += e;
    weighted += e * static_cast<float>(r);
  }
  out.log_sum = logf(sum);
  out.distance = weighted / sum;
  return out;
}

// The gradient share a minimum(self, other) or maximum(self, other) passes to self: all of it
// where self wins, half on a tie, none where other wins (PyTorch's rule).
LIBREYOLO_HOST_DEVICE inline float min_share(float self, float other) {
  return self < other ? 1.f : (self == other ? 0.5f : 0.f);
}
LIBREYOLO_HOST_DEVICE inline float max_share(float self, float other) {
  return self > other ? 1.f : (self == other ? 0.5f : 0.f);
}

// CIoU of the predicted box p with the target t (box_ops.cpp's box_iou, IoUKind::ciou), and, when
// grad is not null, dCIoU/d(p.x1, p.y1, p.x2, p.y2) with alpha held constant.
LIBREYOLO_HOST_DEVICE inline float ciou(const Box& p, const Box& t, const BoxDflShape& s, float* grad) {
  const float eps = s.eps;
  const float w1 = p.x2 - p.x1, h1 = p.y2 - p.y1, w2 = t.x2 - t.x1, h2 = t.y2 - t.y1;
  const float ox_raw = fminf(p.x2, t.x2) - fmaxf(p.x1, t.x1), oy_raw = fminf(p.y2, t.y2) - fmaxf(p.y1, t.y1);
  const float ox = fmaxf(ox_raw, 0.f), oy = fmaxf(oy_raw, 0.f);
  const float inter = ox * oy;
  const float uni = w1 * h1 + w2 * h2 - inter + eps;
  const float iou = inter / uni;
  const float ex = fmaxf(p.x2, t.x2) - fminf(p.x1, t.x1), ey = fmaxf(p.y2, t.y2) - fminf(p.y1, t.y1);
  const float diagonal = ex * ex + ey * ey + eps;
  const float cx = (p.x1 + p.x2) - (t.x1 + t.x2), cy = (p.y1 + p.y2) - (t.y1 + t.y2);
  const float centre = (cx * cx + cy * cy) * 0.25f;
  const float q1 = w1 / (h1 + eps), q2 = w2 / (h2 + eps);
  const float angle = atanf(q1) - atanf(q2);
  const float v = angle * angle * s.four_over_pi_squared;
  const float alpha = v / (v - iou + (1.f + eps));
  const float value = iou - centre / diagonal - alpha * v;
  if (grad == nullptr) return value;
  // IoU = inter / (area1 + area2 - inter + eps).
  const float d_inter = 1.f / uni + inter / (uni * uni), d_area1 = -inter / (uni * uni);
  const float d_ox = ox_raw >= 0.f ? d_inter * oy : 0.f, d_oy = oy_raw >= 0.f ? d_inter * ox : 0.f;
  float d_w1 = d_area1 * h1, d_h1 = d_area1 * w1;
  // - centre / diagonal.
  const float d_centre = -1.f / diagonal, d_diagonal = centre / (diagonal * diagonal);
  const float d_cx = d_centre * 0.5f * cx, d_cy = d_centre * 0.5f * cy;
  const float d_ex = d_diagonal * 2.f * ex, d_ey = d_diagonal * 2.f * ey;
  // - alpha * v, alpha constant; v = k (atan(w1 / (h1 + eps)) - atan(...))^2.
  const float d_q1 = -alpha * s.four_over_pi_squared * 2.f * angle / (1.f + q1 * q1);
  d_w1 += d_q1 / (h1 + eps);
  d_h1 += -d_q1 * w1 / ((h1 + eps) * (h1 + eps));
  grad[0] = -d_ox * max_share(p.x1, t.x1) + d_cx - d_ex * min_share(p.x1, t.x1) - d_w1;
  grad[1] = -d_oy * max_share(p.y1, t.y1) + d_cy - d_ey * min_share(p.y1, t.y1) - d_h1;
  grad[2] = d_ox * min_share(p.x2, t.x2) + d_cx + d_ex * max_share(p.x2, t.x2) + d_w1;
  grad[3] = d_oy * min_share(p.y2, t.y2) + d_cy + d_ey * max_share(p.y2, t.y2) + d_h1;
  return value;
}

// Everything an anchor's two terms and their gradient read.
struct AnchorState {
  SideSoftmax side[4];
  Box predicted, target;
  float weight = 0;
  float target_distance[4] = {0, 0, 0, 0};
};

LIBREYOLO_HOST_DEVICE inline float clamp(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }

LIBREYOLO_HOST_DEVICE inline AnchorState anchor_state(const BoxDflShape& s, const BoxDflBuffers& in, int64_t b,
                                                      int64_t a) {
  AnchorState st;
  for (int k = 0; k < 4; ++k) st.side[k] = side_softmax(s, in.logits, b, a, k);
  const float px = in.points[2 * a], py = in.points[2 * a + 1];
  st.predicted = {px - st.side[0].distance, py - st.side[1].distance, px + st.side[2].distance,
                  py + st.side[3].distance};
  const float* t = in.targets + (b * s.anchors + a) * 4;
  st.target = {t[0], t[1], t[2], t[3]};
  st.weight = in.weight[b * s.anchors + a];
  const float raw[4] = {px - t[0], py - t[1], t[2] - px, t[3] - py};
  // bbox_to_distance clamps to max_distance, dfl_loss again to bins - 1.01.
  for (int k = 0; k < 4; ++k)
    st.target_distance[k] = clamp(clamp(raw[k], 0.f, s.max_distance), 0.f, static_cast<float>(s.bins) - 1.01f);
  return st;
}

// The two bins around a target distance and their weights (left + 1 - t, t - left).
struct Interpolation {
  int left;
  float weight_left, weight_right;
};

LIBREYOLO_HOST_DEVICE inline Interpolation interpolation(float t) {
  const float left = floorf(t);
  return {static_cast<int>(left), left + 1.f - t, t - left};
}

LIBREYOLO_HOST_DEVICE inline void forward_anchor(const BoxDflShape& s, const BoxDflBuffers& in, float* terms,
                                                 int64_t i) {
  const int64_t b = i / s.anchors, a = i % s.anchors;
  const AnchorState st = anchor_state(s, in, b, a);
  float dfl = 0;
  for (int k = 0; k < 4; ++k) {
    const Interpolation at = interpolation(st.target_distance[k]);
    const float shift = st.side[k].max + st.side[k].log_sum;  // log_p = logit - shift
    const float log_left = in.logits[logit_offset(s.logit_stride, b, a, k, at.left)] - shift;
    const float log_right = in.logits[logit_offset(s.logit_stride, b, a, k, at.left + 1)] - shift;
    dfl += -log_left * at.weight_left - log_right * at.weight_right;
  }
  terms[2 * i] = (1.f - ciou(st.predicted, st.target, s, nullptr)) * st.weight;
  terms[2 * i + 1] = dfl / 4.f * st.weight;
}

LIBREYOLO_HOST_DEVICE inline void backward_anchor(const BoxDflShape& s, const BoxDflBuffers& in, const float* upstream,
                                                  float* grad, int64_t i) {
  const int64_t b = i / s.anchors, a = i % s.anchors;
  const AnchorState st = anchor_state(s, in, b, a);
  float d_box[4];
  ciou(st.predicted, st.target, s, d_box);
  const float d_ciou = -upstream[0] * st.weight;
  // The predicted box is (px - d0, py - d1, px + d2, py + d3).
  const float d_distance[4] = {-d_ciou * d_box[0], -d_ciou * d_box[1], d_ciou * d_box[2], d_ciou * d_box[3]};
  const float per_side = upstream[1] * st.weight / 4.f;
  for (int k = 0; k < 4; ++k) {
    const Interpolation at = interpolation(st.target_distance[k]);
    const float g_left = -at.weight_left * per_side, g_right = -at.weight_right * per_side;  // on log_p
    const float shift = st.side[k].max + st.side[k].log_sum;
    for (int r = 0; r < s.bins; ++r) {
      const float p = expf(in.logits[logit_offset(s.logit_stride, b, a, k, r)] - shift);
      float g = -p * (g_left + g_right) + d_distance[k] * p * (static_cast<float>(r) - st.side[k].distance);
      if (r == at.left) g += g_left;
      if (r == at.left + 1) g += g_right;
      grad[logit_offset(s.grad_stride, b, a, k, r)] = g;
    }
  }
}

}  // namespace libreyolo::sdk::fused::bdl
