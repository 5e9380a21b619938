#pragma once
// The SDK-internal seam between deformable_sampling (ms_deform_attn.cpp) and the fused CUDA
// kernels: deform_sampling_fused.cpp in a CUDA build, deform_sampling_fused_unavailable.cpp
// otherwise. Not installed: families call deformable_sampling.

#include <torch/types.h>

#include <string>
#include <vector>

#include "libreyolo/sdk/detr/ms_deform_attn.hpp"

namespace libreyolo::sdk::detr {

// Why the fused kernel cannot take these inputs ("" when it can).
std::string fused_sampling_refusal(const torch::Tensor& value, const SpatialShapes& shapes,
                                   const std::vector<int64_t>& points_per_level);

// value [B, Lv, H, C], locations [B, Q, H, T, 2], weights [B, Q, H, T] (any float dtype; computed
// in float32, as autocast runs grid_sample) -> [B, Q, H * C] float32, differentiable in all three.
torch::Tensor fused_sampling(const torch::Tensor& value, const SpatialShapes& shapes,
                             const std::vector<int64_t>& points_per_level, const torch::Tensor& locations,
                             const torch::Tensor& weights);

}  // namespace libreyolo::sdk::detr
