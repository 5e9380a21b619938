#include "libreyolo/sdk/frozen_batch_norm.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk {

FrozenBatchNorm2dImpl::FrozenBatchNorm2dImpl(int64_t num_features, double eps)
    : num_features_(num_features), eps_(eps) {
  TORCH_CHECK(num_features > 0, "FrozenBatchNorm2d: num_features must be positive, got ", num_features);
  reset();
}

FrozenBatchNorm2dImpl::~FrozenBatchNorm2dImpl() = default;

void FrozenBatchNorm2dImpl::reset() {
  // Registration order is the state-dict order: LibreYOLO's weight, bias, running_mean,
  // running_var.
  weight = register_buffer("weight", torch::ones({num_features_}));
  bias = register_buffer("bias", torch::zeros({num_features_}));
  running_mean = register_buffer("running_mean", torch::zeros({num_features_}));
  running_var = register_buffer("running_var", torch::ones({num_features_}));
}

torch::Tensor FrozenBatchNorm2dImpl::forward(const torch::Tensor& input) {
  TORCH_CHECK(input.dim() == 4 && input.size(1) == num_features_, "FrozenBatchNorm2d(", num_features_,
              "): expected an [N, ", num_features_, ", H, W] input, got ", input.sizes());
  // Reshaped first and combined in LibreYOLO's order, so float results agree with its bit for
  // bit; eps inside the rsqrt keeps a zero running_var from producing inf.
  const auto w = weight.reshape({1, -1, 1, 1});
  const auto b = bias.reshape({1, -1, 1, 1});
  const auto mean = running_mean.reshape({1, -1, 1, 1});
  const auto var = running_var.reshape({1, -1, 1, 1});
  const auto scale = w * (var + eps_).rsqrt();
  const auto shift = b - mean * scale;
  return input * scale + shift;
}

void FrozenBatchNorm2dImpl::pretty_print(std::ostream& stream) const {
  stream << "libreyolo::sdk::FrozenBatchNorm2d(" << num_features_ << ", eps=" << eps_ << ")";
}

}  // namespace libreyolo::sdk
