#pragma once
// The BatchNorm2d families use so that the host can synchronise it across GPUs.
//
// LibTorch's C++ API has no SyncBatchNorm, and C++ modules call their BatchNorm children
// through typed holders (`bn->forward(x)`), so the host cannot swap a layer from outside as
// PyTorch's convert_sync_batchnorm does. Instead a family builds its layers with this type,
// which behaves exactly like torch::nn::BatchNorm2d (same options, same parameters and buffers,
// so the same state_dict keys) until the host hands it a synchronizer: from then on its
// training forward normalises over the global batch of every rank.

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <memory>
#include <ostream>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// Computes a BatchNorm2d's training forward over the global batch. The host implements it
// (over its collectives); a family never needs to.
class LIBREYOLO_SDK_API BatchNormSynchronizer {
 public:
  virtual ~BatchNormSynchronizer();
  // `layer` in training mode, `input` its local shard [N, C, H, W]. Returns the normalised
  // shard and updates the layer's running statistics from the global batch.
  virtual torch::Tensor forward(torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input) = 0;
};

// A torch::nn::BatchNorm2d that can be told to synchronise. Use it (through the BatchNorm2d
// holder below) for every BatchNorm in a family, or `sync_bn=true` cannot reach the layer.
class LIBREYOLO_SDK_API BatchNorm2dImpl : public torch::nn::BatchNorm2dImpl {
 public:
  using torch::nn::BatchNorm2dImpl::BatchNorm2dImpl;  // BatchNorm2dOptions, or num_features
  // Out of line: its definition anchors this type's vtable and typeinfo in libreyolo_sdk.so,
  // so the host's dynamic_cast recognises layers built inside a plugin.
  ~BatchNorm2dImpl() override;

  // Hides the base forward: holders and Sequential call this one. Synchronised only in
  // training; evaluation uses the running statistics (or, without them, the local batch) as
  // torch does, so ranks that evaluate different images never wait for each other.
  torch::Tensor forward(const torch::Tensor& input);

  // nullptr turns synchronisation off again.
  void set_synchronizer(std::shared_ptr<BatchNormSynchronizer> synchronizer);
  bool synchronized() const { return synchronizer_ != nullptr; }

  // Written here: LibTorch does not export the base class's, and this type's vtable needs one.
  void pretty_print(std::ostream& stream) const override;

  // Cloneable's copy would be a plain torch::nn::BatchNorm2dImpl and drop out of
  // synchronisation; this one keeps the type and the synchronizer.
  std::shared_ptr<torch::nn::Module> clone(
      const c10::optional<torch::Device>& device = c10::nullopt) const override;

 private:
  std::shared_ptr<BatchNormSynchronizer> synchronizer_;
};
TORCH_MODULE(BatchNorm2d);

}  // namespace libreyolo::sdk
