#pragma once
// A model's parameters with every tensor once. LibTorch's named_parameters() lists a module
// registered under two parents (RTMDet's head shares one convolution across its three levels)
// at both paths; PyTorch's named_parameters() removes such duplicates, and everything that
// updates, averages or counts parameters must see each tensor once: an optimizer would step a
// tied weight twice, a gradient all-reduce would sum it twice, a parameter count would
// overstate the model.

#include <torch/nn/module.h>

#include <string>
#include <vector>

namespace libreyolo::core::optim {

struct NamedParameter {
  std::string name;  // the first path under which named_parameters() lists the tensor
  torch::Tensor tensor;
};

// named_parameters() order, each tensor once under its first name.
std::vector<NamedParameter> unique_named_parameters(const torch::nn::Module& model);

// The same tensors without names; only those that require grad when trainable_only.
std::vector<torch::Tensor> unique_parameters(const torch::nn::Module& model, bool trainable_only = false);

// Sum of numel() over unique_parameters(model): the count PyTorch's
// sum(p.numel() for p in model.parameters()) gives.
int64_t parameter_count(const torch::nn::Module& model);

}  // namespace libreyolo::core::optim
