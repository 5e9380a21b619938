#pragma once
// For GPU cases that train a family's network: the model on CUDA device 0 in training mode, its
// convolution weights channels-last (as the trainer lays them out), seeded so that two calls give
// the same weights.
#include <torch/torch.h>

#include <memory>
#include <string>

template <typename Detector>
std::shared_ptr<Detector> model_on_gpu(const std::string& size) {
  torch::manual_seed(0);
  auto model = std::make_shared<Detector>(size, 80);
  model->to(torch::Device(torch::kCUDA, 0));
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) {
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  model->train();
  return model;
}
