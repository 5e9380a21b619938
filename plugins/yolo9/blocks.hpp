#pragma once
// YOLOv9's building blocks, one class per block of LibreYOLO's libreyolo/models/yolo9/nn.py.
// Submodules are registered under the Python attribute names (conv, bn, cv1, ..., m, cv2.0)
// so that state_dict keys match LibreYOLO's checkpoints one for one. Modules without
// parameters or persistent buffers in Python (SiLU, Upsample, MaxPool2d, empty ModuleLists)
// are applied as functions here where that changes no key.

#include <libreyolo/sdk/batch_norm.hpp>
#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::families::yolo9 {

// LibreYOLO's Conv: BatchNorm2d(eps=0.001, momentum=0.03) on every convolution.
constexpr double kBatchNormEps = 1e-3;
constexpr double kBatchNormMomentum = 0.03;

// Conv2d (no bias) -> BatchNorm2d -> SiLU (or identity). Keys: conv.weight, bn.{weight, bias,
// running_mean, running_var, num_batches_tracked}. padding < 0 means "same" padding for odd
// kernels, as Python's auto_pad.
class ConvImpl : public torch::nn::Module {
 public:
  ConvImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size = 1, int64_t stride = 1,
           int64_t padding = -1, int64_t groups = 1, bool activation = true);
  torch::Tensor forward(const torch::Tensor& x);
  // forward(x) + residual, the tail in one kernel where fused_kernels allows (block_tails.hpp).
  torch::Tensor forward_plus(const torch::Tensor& x, const torch::Tensor& residual);

  torch::nn::Conv2d conv{nullptr};
  sdk::BatchNorm2d bn{nullptr};  // the SDK's, so sync_bn reaches it

 private:
  bool activation_;
};
TORCH_MODULE(Conv);

// RepConvN as trained (not fused): SiLU(conv1(x) + conv2(x)), a 3x3 and a 1x1 Conv without
// activation. LibreYOLO builds it with bn=False, so there is no identity branch and no `bn` key.
class RepConvNImpl : public torch::nn::Module {
 public:
  RepConvNImpl(int64_t in_channels, int64_t out_channels, int64_t stride = 1, int64_t groups = 1);
  torch::Tensor forward(const torch::Tensor& x);

  Conv conv1{nullptr};
  Conv conv2{nullptr};
};
TORCH_MODULE(RepConvN);

// RepConvN(3x3) -> Conv(3x3), with a residual when shortcut and in == out.
class RepNBottleneckImpl : public torch::nn::Module {
 public:
  RepNBottleneckImpl(int64_t in_channels, int64_t out_channels, bool shortcut = true,
                     double expansion = 0.5);
  torch::Tensor forward(const torch::Tensor& x);

  RepConvN cv1{nullptr};
  Conv cv2{nullptr};

 private:
  bool add_;
};
TORCH_MODULE(RepNBottleneck);

// CSP with n RepNBottlenecks (nn.Sequential `m`): cv3(cat(m(cv1(x)), cv2(x))).
class RepNCSPImpl : public torch::nn::Module {
 public:
  RepNCSPImpl(int64_t in_channels, int64_t out_channels, int64_t repeats = 1);
  torch::Tensor forward(const torch::Tensor& x);

  Conv cv1{nullptr};
  Conv cv2{nullptr};
  Conv cv3{nullptr};
  torch::nn::ModuleList m{nullptr};

 private:
  std::vector<RepNBottleneck> bottlenecks_;  // the same modules as m, typed
};
TORCH_MODULE(RepNCSP);

// Python's nn.Sequential(RepNCSP(in, out, n), Conv(out, out, 3)): children "0" and "1".
class RepNCSPConvImpl : public torch::nn::Module {
 public:
  RepNCSPConvImpl(int64_t in_channels, int64_t out_channels, int64_t repeats);
  torch::Tensor forward(const torch::Tensor& x);

  RepNCSP csp{nullptr};  // registered as "0"
  Conv conv{nullptr};    // registered as "1"
};
TORCH_MODULE(RepNCSPConv);

// ELAN (first block of t and s): cv1 -> split -> cv2 -> cv3 [-> m...] -> cv4(cat).
class ELANImpl : public torch::nn::Module {
 public:
  ELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t n = 1);
  torch::Tensor forward(const torch::Tensor& x);

  Conv cv1{nullptr};
  Conv cv2{nullptr};
  Conv cv3{nullptr};
  Conv cv4{nullptr};
  torch::nn::ModuleList m{nullptr};  // n - 1 extra 3x3 Convs (none for n = 1)

 private:
  std::vector<Conv> extra_;
};
TORCH_MODULE(ELAN);

// RepNCSPELAN4: cv1 -> split -> cv2 (RepNCSP + Conv) -> cv3 (RepNCSP + Conv) -> cv4(cat).
class RepNCSPELANImpl : public torch::nn::Module {
 public:
  RepNCSPELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t n = 1);
  torch::Tensor forward(const torch::Tensor& x);

  Conv cv1{nullptr};
  RepNCSPConv cv2{nullptr};
  RepNCSPConv cv3{nullptr};
  Conv cv4{nullptr};
};
TORCH_MODULE(RepNCSPELAN);

// Downsampling: avg_pool(2, stride 1) then a stride-2 3x3 Conv (t, s, m).
class AConvImpl : public torch::nn::Module {
 public:
  AConvImpl(int64_t in_channels, int64_t out_channels);
  torch::Tensor forward(const torch::Tensor& x);

  Conv cv{nullptr};
};
TORCH_MODULE(AConv);

// Dual-path downsampling (c): avg_pool(2, stride 1), split channels, a stride-2 3x3 Conv on one
// half, max_pool(3, 2, 1) + 1x1 Conv on the other.
class ADownImpl : public torch::nn::Module {
 public:
  ADownImpl(int64_t in_channels, int64_t out_channels);
  torch::Tensor forward(const torch::Tensor& x);

  Conv cv1{nullptr};
  Conv cv2{nullptr};
};
TORCH_MODULE(ADown);

// SPP-ELAN: cv1, three chained max_pool(k, 1, k/2), cv5 on the concatenation of all four.
class SPPELANImpl : public torch::nn::Module {
 public:
  SPPELANImpl(int64_t c1, int64_t c2, int64_t c3, int64_t k = 5);
  torch::Tensor forward(const torch::Tensor& x);

  Conv cv1{nullptr};
  Conv cv5{nullptr};

 private:
  int64_t k_;
};
TORCH_MODULE(SPPELAN);

// Either an AConv or an ADown (Python picks the class per size; the attribute name is the same).
class DownSample {
 public:
  DownSample() = default;
  DownSample(torch::nn::Module& parent, const std::string& name, bool adown, int64_t in_channels,
             int64_t out_channels);
  torch::Tensor operator()(const torch::Tensor& x);

 private:
  AConv aconv_{nullptr};
  ADown adown_{nullptr};
};

}  // namespace libreyolo::families::yolo9
