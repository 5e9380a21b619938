#include "lqe.hpp"

#include <torch/torch.h>

namespace libreyolo::dfine {

LqeImpl::LqeImpl(int64_t k, int64_t hidden_dim, int64_t num_layers, int64_t reg_max) : k_(k), reg_max_(reg_max) {
  reg_conf = register_module("reg_conf", sdk::detr::Mlp(4 * (k + 1), hidden_dim, 1, num_layers));
  reg_conf->zero_last();
}

torch::Tensor LqeImpl::forward(const torch::Tensor& scores, const torch::Tensor& corners) {
  const auto b = corners.size(0), q = corners.size(1);
  const auto prob = torch::softmax(corners.reshape({b, q, 4, reg_max_ + 1}), -1);
  const auto top = std::get<0>(prob.topk(k_, -1));
  const auto stat = torch::cat({top, top.mean(-1, /*keepdim=*/true)}, -1);
  return scores + reg_conf(stat.reshape({b, q, -1}));
}

}  // namespace libreyolo::dfine
