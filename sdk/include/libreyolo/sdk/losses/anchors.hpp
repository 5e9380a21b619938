#pragma once
// Anchor points of anchor-free heads: one point per cell of every output level, at the cell
// centre (offset 0.5), levels concatenated in order and cells row-major (y outer, x inner), the
// order in which heads flatten [B, C, H, W] -> [B, H*W, C]. Shapes depend only on the feature
// map sizes, so the result is fixed for a fixed input size.

#include <torch/types.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

struct AnchorPoints {
  torch::Tensor points;   // [A, 2] float32 (x, y) in input pixels: (col + offset) * stride
  torch::Tensor strides;  // [A, 1] float32: the stride of each point's level
};

// level_sizes[l] = (H_l, W_l); strides[l] is that level's stride in input pixels.
LIBREYOLO_SDK_API AnchorPoints make_anchors(const std::vector<std::pair<int64_t, int64_t>>& level_sizes,
                                            const std::vector<int64_t>& strides, const torch::Device& device,
                                            double offset = 0.5);

// The same, reading (H_l, W_l) from per-level feature maps [B, C, H_l, W_l] (shapes only; no
// host synchronisation) and placing the result on their device.
LIBREYOLO_SDK_API AnchorPoints make_anchors(const std::vector<torch::Tensor>& features,
                                            const std::vector<int64_t>& strides, double offset = 0.5);

// A head's per-level outputs [B, C, H_l, W_l] as one [B, A, C] tensor of `dtype`, anchors in
// make_anchors' order. Each level is turned anchor-major before the concatenation: for the
// channels-last maps of a CUDA step that is a view whose memory is already [B, H*W, C], so the
// concatenation copies contiguous blocks, where concatenating [B, C, H*W] views along the anchors
// writes every value to a transposed place, and the gradient comes back in that transposed layout
// too (docs/benchmarks.md, "Thirty-eighth session", has what it cost). One cast after the
// concatenation (a cast is elementwise: the values of casting each level).
LIBREYOLO_SDK_API torch::Tensor anchor_rows(const std::vector<torch::Tensor>& levels,
                                            torch::ScalarType dtype = torch::kFloat32);

}  // namespace libreyolo::sdk::losses
