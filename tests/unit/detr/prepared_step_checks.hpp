#pragma once
// What RT-DETR's and D-FINE's prepared-forward tests compare: one training step's outputs, loss
// and every parameter's gradient, taken on the unprepared path and on a prepared one.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace libreyolo::test {

struct PreparedStep {
  std::vector<torch::Tensor> outputs;
  double loss = 0;
  std::vector<std::pair<std::string, torch::Tensor>> grads;
  std::vector<int64_t> key;  // what prepare_training_forward returned (empty: unprepared)
};

// Every parameter's gradient after backward, by name; a parameter the step does not reach counts
// as a zero gradient (padding reaches the denoising embedding's padding row in a batch without
// GT, where the unpadded step never embeds: a zero gradient either way).
std::vector<std::pair<std::string, torch::Tensor>> gradients_by_name(const torch::nn::Module& model);

// got against want: loss within 1e-5 relative; floating outputs within 1e-5 of the largest
// magnitude, integer ones equal; each gradient within gradient_tolerance of max(largest
// |gradient|, gradient_floor). The floor covers gradients that are zero in exact arithmetic (a
// scale or bias before a normalisation), whose float noise depends on the model.
void check_same_step(const PreparedStep& got, const PreparedStep& want, double gradient_floor,
                     double gradient_tolerance = 1e-4);

}  // namespace libreyolo::test
