#pragma once
// The 2x nearest upsample of the YOLO necks (YOLOv9's, YOLOX's and RTMDet's PAFPN), before the
// upsampled map is concatenated with the level below. Autocast lists upsample_nearest2d among
// the ops it runs in float32, so under float16 autocast PyTorch casts the map to float32,
// upsamples it, the concatenation promotes the level below to float32 too, and the next
// convolution casts the result back to float16; the backward casts the other way. A nearest
// upsample only copies values, so in float16 it gives the same bits: where the fused_kernels
// policy allows `half_upsample` it runs in the map's own type, and none of those casts happen
// (docs/fused-kernels.md, "Half-precision upsample").

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// torch::upsample_nearest2d(x, {2 * H, 2 * W}) for a 4-D x; in x's own type under autocast where
// the policy allows half_upsample.
LIBREYOLO_SDK_API torch::Tensor upsample_nearest_2x(const torch::Tensor& x);

}  // namespace libreyolo::sdk
