#pragma once
// D-FINE's ConvNormLayer / ConvNormLayer_fuse (LibreYOLO's libreyolo/models/dfine/encoder.py;
// the two differ only in a deploy-time BatchNorm fusion, not built here): Conv2d without bias ->
// BatchNorm2d -> optional SiLU. Keys conv.weight, norm.{weight, bias, running_mean,
// running_var, num_batches_tracked}. The norm is the SDK's BatchNorm2d, so sync_bn reaches it.

#include <libreyolo/sdk/batch_norm.hpp>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <optional>

namespace libreyolo::dfine {

struct ConvNormOptions {
  ConvNormOptions(int64_t in, int64_t out, int64_t kernel, int64_t stride_ = 1)
      : in_channels(in), out_channels(out), kernel_size(kernel), stride(stride_) {}

  int64_t in_channels;
  int64_t out_channels;
  int64_t kernel_size;
  int64_t stride;
  int64_t groups = 1;
  std::optional<int64_t> padding;  // (kernel_size - 1) / 2 when absent, as in LibreYOLO
  bool silu = false;               // LibreYOLO's act="silu"; otherwise no activation
};

class ConvNormLayer : public torch::nn::Module {
 public:
  // Throws std::invalid_argument for non-positive sizes or channels not divisible by groups.
  explicit ConvNormLayer(const ConvNormOptions& options);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv_{nullptr};
  sdk::BatchNorm2d norm_{nullptr};
  bool silu_;
};

// Shorthand for the blocks: a k x k, stride-s ConvNormLayer with LibreYOLO's default padding.
std::shared_ptr<ConvNormLayer> conv_norm(int64_t in, int64_t out, int64_t kernel, int64_t stride, bool silu);

}  // namespace libreyolo::dfine
