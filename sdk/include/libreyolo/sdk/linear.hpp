#pragma once
// The Linear layer families use: torch::nn::Linear's parameters, options and state_dict keys,
// with PyTorch's forward.
//
// LibTorch's C++ torch::nn::Linear computes x.matmul(w.t()) and then adds the bias in a second
// operation whenever x has more than two dimensions (a decoder's [batch, queries, features]), so
// every call costs three dispatched operators, an extra kernel forward and extra autograd nodes
// backward, and in float16 rounds the product before the bias is added. Python's nn.Linear (what
// LibreYOLO runs) calls torch.linear: one operator whose GEMM adds the bias itself. This type
// calls the same operator.

#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <memory>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

class LIBREYOLO_SDK_API LinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;  // LinearOptions, or in and out features
  // Out of line: anchors this type's vtable in libreyolo_sdk.so.
  ~LinearImpl() override;

  // torch::linear(input, weight, bias). Hides the base forward: holders call this one.
  torch::Tensor forward(const torch::Tensor& input);

  // Cloneable's copy would be a plain torch::nn::LinearImpl with the matmul-then-add forward.
  std::shared_ptr<torch::nn::Module> clone(const c10::optional<torch::Device>& device = c10::nullopt) const override;
};
TORCH_MODULE(Linear);

}  // namespace libreyolo::sdk
