#pragma once
// The DETR families' small MLP: `num_layers` Linear layers under "layers" (keys layers.i), a ReLU
// between consecutive ones (LibreYOLO's MLP in its RT-DETR and D-FINE code). RT-DETR's query
// position and box heads and D-FINE's, plus D-FINE's fine-distribution and quality heads, are all
// of this shape, so both plugins build them from here.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstddef>
#include <cstdint>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::sdk::detr {

class LIBREYOLO_SDK_API MlpImpl : public torch::nn::Module {
 public:
  // The first layer maps input_dim -> hidden_dim, the last hidden_dim -> output_dim (one layer:
  // input_dim -> output_dim). Throws std::invalid_argument unless num_layers >= 1.
  MlpImpl(int64_t input_dim, int64_t hidden_dim, int64_t output_dim, int64_t num_layers);
  torch::Tensor forward(torch::Tensor x);

  sdk::Linear layer(size_t i) const;
  sdk::Linear last() const { return layer(layers->size() - 1); }
  // The last layer's weight and bias set to zero: a box head whose first prediction is "no
  // change" from its reference (both DETRs initialise their refinement heads this way).
  void zero_last();

  torch::nn::ModuleList layers;
};
TORCH_MODULE(Mlp);

}  // namespace libreyolo::sdk::detr
