#pragma once
// Convolution inputs widened to a multiple of eight channels (fused_kernels=aligned_channels;
// docs/fused-kernels.md, "Aligned channels").
//
// cuDNN's channels-last float16 convolutions want their input channels in multiples of eight.
// With fewer (YOLOX's Focus hands its 3x3 convolution twelve) cuDNN pads the input on every call,
// a pass as large as the input, and then runs kernels for 2-byte-aligned rows: YOLOX-s's Focus
// convolution took 656 us of a step's forward and weight gradient on an H100 where the same
// convolution of a sixteen-channel input took 384 us (tests/tools/stem_padding_probe.py). Where a
// network builds such an input by concatenation anyway, the concatenation can write the zero
// channels too, and the convolution reads the wide input with its weight zero-padded to match:
// zeros add nothing to the sums, so the values are the narrow convolution's up to the order of
// summation, the stored weight keeps its shape (checkpoints unchanged), and its gradient is the
// padded weight's sliced back.

#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// torch::cat(parts, 1), or, where the policy allows aligned_channels, the parts are CUDA tensors
// and their channels are not a multiple of eight, the same with zero channels appended up to the
// next multiple of eight (in the parts' memory format).
LIBREYOLO_SDK_API torch::Tensor concat_channels_aligned(const std::vector<torch::Tensor>& parts);

// torch::cat(parts, 1) with zero channels appended up to `channels` in all (at least the parts'
// own), in the first part's suggested memory format: what concat_channels_aligned returns when
// it widens, without the policy's and device's conditions.
LIBREYOLO_SDK_API torch::Tensor concat_channels_padded(const std::vector<torch::Tensor>& parts, int64_t channels);

// conv->forward(x) when x has the convolution's input channels; when x has more (a widened
// input whose extra channels are zero), the convolution with its weight zero-padded along the
// input channels to x's. The convolution must be ungrouped.
LIBREYOLO_SDK_API torch::Tensor conv2d_aligned(torch::nn::Conv2d& conv, const torch::Tensor& x);

}  // namespace libreyolo::sdk
