#pragma once
// The SDK-internal seam between prediction_levels (prediction_rows.cpp) and its CUDA kernels:
// prediction_rows_fused.cpp in a CUDA build, prediction_rows_fused_unavailable.cpp otherwise.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::sdk {

// One 1x1 convolution, every tensor already in the type it runs in (float16, bfloat16 or float32).
struct FusedPredictionConv {
  torch::Tensor input;   // [B, in, H, W] on CUDA
  torch::Tensor weight;  // [out, in / groups, 1, 1]
  torch::Tensor bias;    // [out]
  int64_t groups = 1;
};

// Why this build cannot run the kernels at all ("" when it can).
std::string fused_prediction_rows_unavailable();
// Why the kernels would not take levels of these convolutions' output sizes ("" when they would).
std::string fused_prediction_rows_shape_refusal(const std::vector<std::vector<FusedPredictionConv>>& levels);

// The float32 rows [B, A, C] (prediction_rows.hpp), differentiable in every input, weight and bias.
torch::Tensor fused_prediction_rows(const std::vector<std::vector<FusedPredictionConv>>& levels);

}  // namespace libreyolo::sdk
