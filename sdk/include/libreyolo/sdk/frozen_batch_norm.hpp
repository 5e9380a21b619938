#pragma once
// BatchNorm2d with fixed statistics and affine values: what LibreYOLO's RT-DETR and D-FINE
// backbones use (freeze_norm) where fine-tuning batches are too small to estimate BatchNorm
// statistics. The same computation and state-dict keys as LibreYOLO's FrozenBatchNorm2d:
//   scale = weight / sqrt(running_var + eps);  shift = bias - running_mean * scale
//   y = x * scale + shift                        (per channel of [N, C, H, W])
// weight, bias, running_mean and running_var are buffers, not parameters: the optimizer never
// sees them, training mode changes nothing, and the host treats the layer as no BatchNorm
// (no BatchNorm weight-decay group, no sync_bn). There is no num_batches_tracked; the host's
// state-dict loader drops a BatchNorm checkpoint's one for this layer, as LibreYOLO's
// _load_from_state_dict does, so BatchNorm2d weights load into it strictly.
//
// LibTorch cannot swap a typed child from outside (PyTorch's freeze_batch_norm2d does), so a
// family builds this type where LibreYOLO would freeze the norm:
//   norm = register_module("norm", sdk::FrozenBatchNorm2d(channels));

#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <ostream>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

class LIBREYOLO_SDK_API FrozenBatchNorm2dImpl : public torch::nn::Cloneable<FrozenBatchNorm2dImpl> {
 public:
  // eps as LibreYOLO's (and torchvision's) FrozenBatchNorm2d. Values start as an identity:
  // weight 1, bias 0, running_mean 0, running_var 1.
  explicit FrozenBatchNorm2dImpl(int64_t num_features, double eps = 1e-5);
  // Out of line: anchors this type's vtable and typeinfo in libreyolo_sdk.so, so the host's
  // dynamic_cast recognises layers built inside a plugin.
  ~FrozenBatchNorm2dImpl() override;

  // (Re)registers the four buffers as identities; Cloneable::clone calls it before copying.
  void reset() override;

  // `input` [N, C, H, W] with C == num_features; throws c10::Error otherwise.
  torch::Tensor forward(const torch::Tensor& input);

  void pretty_print(std::ostream& stream) const override;

  int64_t num_features() const { return num_features_; }
  double eps() const { return eps_; }

  torch::Tensor weight, bias, running_mean, running_var;  // buffers, in state-dict order

 private:
  int64_t num_features_;
  double eps_;
};
TORCH_MODULE(FrozenBatchNorm2d);

}  // namespace libreyolo::sdk
