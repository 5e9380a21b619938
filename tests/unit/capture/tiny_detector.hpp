#pragma once
// The capture manager tests' detector: one convolution as the capturable region, counting its
// eager forwards, and a way to announce a change of what the region computes.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "libreyolo/sdk/detector.hpp"

namespace libreyolo::test {

class TinyDetector : public sdk::Detector {
 public:
  TinyDetector() { conv_ = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).padding(1))); }
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override {
    ++eager_forwards;
    return {conv_->forward(images)};
  }
  sdk::Candidates decode(const std::vector<torch::Tensor>&) override { return {}; }
  void change_computation(const std::string& why) { announce_capture_change(why); }
  int eager_forwards = 0;

 private:
  torch::nn::Conv2d conv_{nullptr};
};

}  // namespace libreyolo::test
