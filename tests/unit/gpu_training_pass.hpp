#pragma once
// For GPU cases that compare two ways of running a family's network (side streams, fused block
// tails): one forward + backward under float16 autocast whose loss is a fixed random linear
// function of the outputs, and everything it produced kept for a bitwise comparison.
#include <torch/torch.h>

#include <cstddef>
#include <vector>

#include <libreyolo/sdk/detector.hpp>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "torch_doctest.hpp"

namespace libreyolo::test {

inline const torch::Device kCudaZero(torch::kCUDA, 0);

// The loss and every gradient of one pass, copied into `kept` (made by kept_for). Fresh gradients.
// half = false: the same pass without autocast (float32 throughout).
inline void autocast_pass(sdk::Detector& model, const torch::Tensor& images, const std::vector<torch::Tensor>& weights,
                          std::vector<torch::Tensor>& kept, bool half = true) {
  for (auto& p : model.parameters()) p.mutable_grad().reset();
  const auto plan = core::amp::plan_precision(half, "float16", kCudaZero, true);
  torch::Tensor loss = torch::zeros({}, images.options().dtype(torch::kFloat32));
  {
    core::amp::AutocastScope autocast(plan);
    const auto outputs = model.forward_capturable(images);
    for (std::size_t i = 0; i < outputs.size(); ++i) loss = loss + (outputs[i].to(torch::kFloat32) * weights[i]).sum();
  }
  loss.backward();
  torch::NoGradGuard no_grad;
  kept[0].copy_(loss);
  const auto parameters = model.parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (parameters[i].grad().defined()) kept[i + 1].copy_(parameters[i].grad());
  }
}

// Zeroed room for the loss and each parameter's gradient.
inline std::vector<torch::Tensor> kept_for(sdk::Detector& model) {
  std::vector<torch::Tensor> kept{torch::zeros({}, kCudaZero)};
  for (const auto& p : model.parameters()) kept.push_back(torch::zeros_like(p));
  return kept;
}

// How many of the kept tensors differ in any bit.
inline int differing(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  REQUIRE(a.size() == b.size());
  int count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) count += torch::equal(a[i], b[i]) ? 0 : 1;
  return count;
}

// A random weight for each output of the model at `probe`'s size.
inline std::vector<torch::Tensor> output_weights(sdk::Detector& model, const torch::Tensor& probe) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> weights;
  for (const auto& o : model.forward_capturable(probe)) weights.push_back(torch::randn(o.sizes(), kCudaZero));
  return weights;
}

}  // namespace libreyolo::test
