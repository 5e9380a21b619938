#pragma once
// The last step of the data pipeline, on the training device: a uint8 RGB NHWC batch becomes
// the float NCHW (channels-last in memory) tensor the network expects, as its family's
// InputFormat says. CPU-side data never becomes float.

#include <torch/types.h>

#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::data {

// [B, H, W, 3] uint8 -> [B, 3, H, W] `dtype`, channels-last strides (a permuted view of NHWC).
torch::Tensor to_network_input(const torch::Tensor& images_nhwc, const sdk::InputFormat& format,
                               torch::ScalarType dtype = torch::kFloat32);

// Multi-scale training: resizes a whole network-input batch (bilinear) to `size` x `size` and
// scales the targets' pixel coordinates with it. No-op when the size is unchanged.
void resize_batch(torch::Tensor& images, torch::Tensor& targets, int64_t size, bool nearest = false);

}  // namespace libreyolo::core::data
