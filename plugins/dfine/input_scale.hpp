#pragma once
// (width, height, width, height) as a device tensor, to turn cx, cy, w, h between pixels of the
// network input and the [0, 1] coordinates DETRs predict. Built with fills on the device: a
// small CPU tensor copied to a CUDA device would make the host wait for the whole stream.

#include <torch/types.h>

namespace libreyolo::dfine {

torch::Tensor xywh_scale(int64_t height, int64_t width, const torch::TensorOptions& options);

}  // namespace libreyolo::dfine
