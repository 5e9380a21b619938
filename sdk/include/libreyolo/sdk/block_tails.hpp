#pragma once
// The elementwise tails of the YOLO blocks: silu(a + b), where YOLOv9's RepConvN adds its 3x3 and
// 1x1 branches, and silu(x) + residual, where a residual bottleneck (YOLOv9's RepNBottleneck,
// YOLOX's Bottleneck) adds its input to its last convolution's activation. Composed (PyTorch's
// addition and SiLU, two kernels and the intermediate tensor written and read back) unless the
// fused_kernels policy allows `block_tails`, whose kernels do each in one pass with the same
// bits; the backwards are PyTorch's own either way (docs/fused-kernels.md, "Block tails").

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// torch::silu(a + b).
LIBREYOLO_SDK_API torch::Tensor add_silu(const torch::Tensor& a, const torch::Tensor& b);

// torch::silu(x) + residual.
LIBREYOLO_SDK_API torch::Tensor silu_add(const torch::Tensor& x, const torch::Tensor& residual);

// batch_norm_silu(bn, x) + residual: the tail of a convolution block whose output a residual
// joins. Where the fused BatchNorm + SiLU runs (fused_kernels allows it and it takes the inputs)
// it stays that, plus the addition; otherwise silu_add(bn(x), residual).
LIBREYOLO_SDK_API torch::Tensor batch_norm_silu_add(BatchNorm2d& bn, const torch::Tensor& x,
                                                    const torch::Tensor& residual);

// Why the fused kernels would not take the pair (a, b), whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string block_tail_refusal(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace libreyolo::sdk
