#pragma once
// The CCFF blocks of D-FINE's hybrid encoder (LibreYOLO's libreyolo/models/dfine/encoder.py),
// which replace RT-DETR's CSPRepLayer with GELAN-style blocks: VGGBlock (a RepVGG block),
// CSPLayer, RepNCSPELAN4 (fusion) and SCDown (downsampling). Training form only: the deploy-time
// re-parameterisation into single convs is an export matter. Keys as LibreYOLO's.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "conv_norm.hpp"

namespace libreyolo::dfine {

// silu(conv1(x) + conv2(x)): a 3x3 and a 1x1 ConvNormLayer without activation of their own.
class VggBlock : public torch::nn::Module {
 public:
  VggBlock(int64_t in_channels, int64_t out_channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvNormLayer> conv1_, conv2_;
};

// bottlenecks(conv1(x)) + conv2(x), both 1x1 SiLU convs to out_channels (LibreYOLO builds it
// with expansion 1 here, so its conv3 is an Identity and has no keys).
// Keys conv1.*, conv2.*, bottlenecks.<i>.{conv1, conv2}.*.
class CspLayer : public torch::nn::Module {
 public:
  CspLayer(int64_t in_channels, int64_t out_channels, int64_t num_blocks);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvNormLayer> conv1_, conv2_;
  std::vector<std::shared_ptr<VggBlock>> bottlenecks_;
};

// A CspLayer followed by a 3x3 SiLU ConvNormLayer (LibreYOLO's nn.Sequential: keys 0.*, 1.*).
class CspStage : public torch::nn::Module {
 public:
  CspStage(int64_t in_channels, int64_t out_channels, int64_t num_blocks);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<CspLayer> csp_;
  std::shared_ptr<ConvNormLayer> conv_;
};

// RepNCSPELAN4(c1, c2, c3, c4, n): cv1 (1x1, c1 -> c3) split into two halves a, b;
// c = cv2(b), d = cv3(c); cv4(cat(a, b, c, d)) (1x1 -> c2). Keys cv1.*, cv2.{0,1}.*,
// cv3.{0,1}.*, cv4.*.
class RepNCSPELAN4 : public torch::nn::Module {
 public:
  // Throws std::invalid_argument unless c3 is even and every width positive.
  RepNCSPELAN4(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t num_blocks);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t half_;
  std::shared_ptr<ConvNormLayer> cv1_, cv4_;
  std::shared_ptr<CspStage> cv2_, cv3_;
};

// cv2(cv1(x)): a 1x1 conv, then a depthwise k x k stride-s conv; no activations.
class SCDown : public torch::nn::Module {
 public:
  SCDown(int64_t c1, int64_t c2, int64_t kernel, int64_t stride);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  std::shared_ptr<ConvNormLayer> cv1_, cv2_;
};

}  // namespace libreyolo::dfine
