#pragma once
// The task-aligned assigner's first stage as one kernel (losses/task_aligned_metric.hpp): per
// (image b, ground-truth row m, anchor a), whether the anchor is a candidate, the gt-prediction
// IoU of the chosen kind clamped to [0, 1], and the alignment metric. A plain interface of raw
// pointers and a stream, no torch and no CUDA headers, like the pools' kernels.
//
// Every value is computed with the operations, in the order and with the float32 roundings, of
// the composed PyTorch ops it replaces (box_ops.cpp's box_iou, task_aligned_assigner.cpp), with
// no fused multiply-adds, so the outputs are the composed outputs bit for bit.

#include <cstdint>

namespace libreyolo::sdk::fused {

enum class MetricIoU { iou = 0, giou = 1, diou = 2, ciou = 3 };

// How PyTorch evaluates x.pow(p) for a float scalar p (its CUDA kernel special-cases these).
enum class PowerKind { identity = 0, square_root = 1, square = 2, cube = 3, general = 4 };

struct AlignedMetricShape {
  int64_t batch = 0, rows = 0, anchors = 0, classes = 0;
  int64_t score_strides[3] = {0, 0, 0};  // pred_scores' strides in elements (b, a, class)
  MetricIoU iou_kind = MetricIoU::ciou;
  float eps = 1e-7f;                    // box_iou's eps, as float32
  float one_plus_eps = 1.f;             // (1 + eps) as PyTorch hands the scalar to a float op
  float four_over_pi_squared = 0.f;     // 4 / pi^2 as float32
  PowerKind score_power_kind = PowerKind::square_root, iou_power_kind = PowerKind::general;
  float score_power = 0.5f, iou_power = 6.f;
  bool limit_distance = false;  // max_distance > 0
  float max_distance = 0.f;
};

struct AlignedMetricInputs {
  const float* gt_boxes;       // [B, M, 4] xyxy, contiguous
  const float* pred_boxes;     // [B, A, 4] xyxy, contiguous
  const float* anchor_points;  // [A, 2], contiguous
  const float* anchor_strides; // [A]
  const float* pred_scores;    // [B, A, C] at score_strides
  const int64_t* labels;       // [B, M], each in [0, C)
  const bool* gt_valid;        // [B, M]
};

struct AlignedMetricOutputs {
  float* iou;               // [B, M, A]: the IoU clamped to [0, 1]
  float* metric;            // [B, M, A]: score^score_power * iou^iou_power * valid
  float* candidate_metric;  // [B, M, A]: metric * candidate
};

// Returns 0 on success, else the CUDA error code of the launch (text from
// task_aligned_metric_error_text). One launch on `stream`.
int task_aligned_metric(const AlignedMetricShape& shape, const AlignedMetricInputs& in, const AlignedMetricOutputs& out,
                        void* stream);
const char* task_aligned_metric_error_text(int code);

}  // namespace libreyolo::sdk::fused
