#pragma once
// D-FINE's Localization Quality Estimation (LibreYOLO's LQE): a box whose edge distributions
// are peaked is more likely well localised, so the class logits get a learned offset computed
// from the top-k probabilities of each edge's distribution and their mean. Keys
// reg_conf.layers.{0,1}.*; the offset starts at zero (last layer zeroed).

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>

#include "libreyolo/sdk/detr/mlp.hpp"

namespace libreyolo::dfine {

class LqeImpl : public torch::nn::Module {
 public:
  LqeImpl(int64_t k, int64_t hidden_dim, int64_t num_layers, int64_t reg_max);

  // scores [B, Q, C], corners [B, Q, 4 * (reg_max + 1)] logits -> scores + quality [B, Q, C].
  torch::Tensor forward(const torch::Tensor& scores, const torch::Tensor& corners);

  sdk::detr::Mlp reg_conf{nullptr};

 private:
  int64_t k_, reg_max_;
};
TORCH_MODULE(Lqe);

}  // namespace libreyolo::dfine
