#pragma once
// YOLOX's building blocks, one class per block of LibreYOLO's libreyolo/models/yolox/nn.py.
// Submodules are registered under the Python attribute names (conv, bn, dconv, pconv, conv1, m,
// ...) so that state_dict keys match LibreYOLO's checkpoints one for one. Modules without
// parameters or persistent buffers in Python (SiLU, MaxPool2d, Upsample) are applied as
// functions here, which changes no key.

#include <libreyolo/sdk/batch_norm.hpp>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace libreyolo::families::yolox {

// LibreYOLO sets BatchNorm eps 1e-3 and momentum 0.03 on every size (as the official YOLOX's
// Exp.get_model does) after building the model; here the modules are built that way.
constexpr double kBatchNormEps = 1e-3;
constexpr double kBatchNormMomentum = 0.03;

// What BaseConv and DWConv have in common: a forward on one tensor. Python picks one of the two
// classes per attribute (`Conv = DWConv if depthwise else BaseConv`); the attribute name, and so
// the key prefix, is the same either way.
class ConvLike : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  // forward(x) + residual, the tail in one kernel where fused_kernels allows (block_tails.hpp).
  virtual torch::Tensor forward_plus(const torch::Tensor& x, const torch::Tensor& residual) = 0;
};

// Conv2d (no bias, "same" padding (k - 1) / 2) -> BatchNorm2d -> SiLU.
// Keys: conv.weight, bn.{weight, bias, running_mean, running_var, num_batches_tracked}.
class BaseConv : public ConvLike {
 public:
  BaseConv(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride, int64_t groups = 1);
  torch::Tensor forward(const torch::Tensor& x) override;
  torch::Tensor forward_plus(const torch::Tensor& x, const torch::Tensor& residual) override;

  torch::nn::Conv2d conv{nullptr};
  sdk::BatchNorm2d bn{nullptr};  // the SDK's, so sync_bn reaches it
};

// Depthwise k x k BaseConv (groups = in) then a pointwise 1x1 BaseConv: keys dconv.*, pconv.*.
class DWConv : public ConvLike {
 public:
  DWConv(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1);
  torch::Tensor forward(const torch::Tensor& x) override;
  torch::Tensor forward_plus(const torch::Tensor& x, const torch::Tensor& residual) override;

  std::shared_ptr<BaseConv> dconv;
  std::shared_ptr<BaseConv> pconv;
};

// DWConv when depthwise (YOLOX-nano), else BaseConv.
std::shared_ptr<ConvLike> make_conv(bool depthwise, int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                                    int64_t stride);

// conv1 (1x1 BaseConv) -> conv2 (3x3, DWConv if depthwise), plus the input when shortcut and
// in == out.
class Bottleneck : public torch::nn::Module {
 public:
  Bottleneck(int64_t in_channels, int64_t out_channels, bool shortcut, double expansion, bool depthwise);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<BaseConv> conv1;
  std::shared_ptr<ConvLike> conv2;

 private:
  bool use_add_;
};

// C3: conv3(cat(m(conv1(x)), conv2(x))), m Python's nn.Sequential of n Bottlenecks ("m.0", "m.1",
// ...; held in a ModuleList here, which names children the same way).
class CSPLayer : public torch::nn::Module {
 public:
  CSPLayer(int64_t in_channels, int64_t out_channels, int64_t n, bool shortcut, bool depthwise);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<BaseConv> conv1;
  std::shared_ptr<BaseConv> conv2;
  std::shared_ptr<BaseConv> conv3;
  torch::nn::ModuleList m{nullptr};

 private:
  std::vector<std::shared_ptr<Bottleneck>> bottlenecks_;  // the modules of m, typed
};

// SPP: conv1 (to in / 2), max-pools 5, 9, 13 (stride 1, same size), conv2 on the concatenation.
class SPPBottleneck : public torch::nn::Module {
 public:
  SPPBottleneck(int64_t in_channels, int64_t out_channels);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<BaseConv> conv1;
  std::shared_ptr<BaseConv> conv2;
};

// Space to depth (the four pixel phases stacked as channels: top-left, bottom-left, top-right,
// bottom-right) then a 3x3 BaseConv: key conv.*.
class Focus : public torch::nn::Module {
 public:
  Focus(int64_t in_channels, int64_t out_channels, int64_t kernel_size);
  torch::Tensor forward(const torch::Tensor& x);

  std::shared_ptr<BaseConv> conv;
};

}  // namespace libreyolo::families::yolox
