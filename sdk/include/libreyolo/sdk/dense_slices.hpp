#pragma once
// A channel slice of a channels-last activation (a chunk of a block's first convolution, as in
// YOLOv9's ELAN and ADown) is not dense in memory: each pixel's channels are followed by the other
// half's. PyTorch's convolution and pooling then copy it into a dense tensor on every call, and
// the convolution's backward copies it again for the weight gradient, because autograd kept the
// slice, not the copy. `dense_slice` makes that copy once, before all readers, where the
// fused_kernels policy allows `dense_slices`: the same values (so the same bits), fewer copies
// (docs/fused-kernels.md, "Dense slices").

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// x itself, or, where the policy allows dense_slices and x is not dense in its own memory format
// (channels-last or contiguous), x copied into that format once.
LIBREYOLO_SDK_API torch::Tensor dense_slice(const torch::Tensor& x);

}  // namespace libreyolo::sdk
