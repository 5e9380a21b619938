#pragma once
// LibreYOLO's RT-DETR MLP: `num_layers` Linear layers (keys layers.i), ReLU between them.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

namespace libreyolo::rtdetr {

class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(int64_t input_dim, int64_t hidden_dim, int64_t output_dim, int64_t num_layers);
  torch::Tensor forward(torch::Tensor x);

  torch::nn::ModuleList layers;
};
TORCH_MODULE(Mlp);

}  // namespace libreyolo::rtdetr
