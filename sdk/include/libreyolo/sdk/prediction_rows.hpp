#pragma once
// A detector head's 1x1 prediction convolutions (YOLOv9's box and class outputs, level by level)
// as the criterion reads them (docs/fused-kernels.md, "Prediction rows").
//
// Composed, each level's convolutions run with their bias and are concatenated along channels;
// the criterion (losses::anchor_rows) then copies the levels into one float32 [B, A, C] and, in
// the backward, autograd cuts that gradient back into strided channel slices that every
// convolution's backward copies dense and sums for its bias (YOLOv9-t: six float16 reductions of
// about 31 us and six copies a step on an H100). Where the fused_kernels policy allows
// `prediction_rows` and prediction_rows_refusal() is empty, the convolutions run without their
// bias and one launch writes the float32 rows with each bias added as PyTorch adds it; the
// levels handed back are views of those rows, which anchor_rows returns without a copy; the
// backward writes every convolution's output gradient in its own layout and the bias sums in two
// launches (a fixed order: the same bits every run).

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <string>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

struct PredictionConv {
  torch::nn::Conv2d conv;  // 1x1, stride 1, no padding, with a bias
  torch::Tensor input;     // [B, in channels, H, W]
};

// Per level, its convolutions' outputs side by side along channels: [B, their out channels, H, W].
// Every level's convolutions must read maps of one size.
LIBREYOLO_SDK_API std::vector<torch::Tensor> prediction_levels(const std::vector<std::vector<PredictionConv>>& levels);

// Why the fused path would not take these levels, whatever the policy ("" when it would).
LIBREYOLO_SDK_API std::string prediction_rows_refusal(const std::vector<std::vector<PredictionConv>>& levels);

// The float32 [B, A, C] tensor that `levels` are views of, in anchor_rows' order (each level's
// anchors row-major, the levels one after another), as prediction_levels' fused path makes them;
// undefined for any other levels. anchor_rows returns it instead of copying.
LIBREYOLO_SDK_API torch::Tensor rows_behind_levels(const std::vector<torch::Tensor>& levels);

}  // namespace libreyolo::sdk
