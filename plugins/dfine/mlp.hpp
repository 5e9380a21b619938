#pragma once
// LibreYOLO's D-FINE MLP: `num_layers` Linear layers (keys layers.i), ReLU between them. The
// query position head, the encoder's box head, pre_bbox_head, the FDR heads and the LQE
// quality head are all of this shape.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(int64_t input_dim, int64_t hidden_dim, int64_t output_dim, int64_t num_layers);
  torch::Tensor forward(torch::Tensor x);

  sdk::Linear layer(size_t i) const { return sdk::Linear(layers->ptr<sdk::LinearImpl>(i)); }
  sdk::Linear last() const { return layer(layers->size() - 1); }
  // The last layer's weight and bias to zero: a head whose first prediction is "no change".
  void zero_last();

  torch::nn::ModuleList layers;
};
TORCH_MODULE(Mlp);

}  // namespace libreyolo::dfine
