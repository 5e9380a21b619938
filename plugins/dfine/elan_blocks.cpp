#include "elan_blocks.hpp"

#include <libreyolo/sdk/dense_slices.hpp>
#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace libreyolo::dfine {

VggBlock::VggBlock(int64_t in_channels, int64_t out_channels) {
  conv1_ = register_module("conv1", conv_norm(in_channels, out_channels, 3, 1, false));
  conv2_ = register_module("conv2", conv_norm(in_channels, out_channels, 1, 1, false));
}

torch::Tensor VggBlock::forward(const torch::Tensor& x) { return torch::silu(conv1_->forward(x) + conv2_->forward(x)); }

CspLayer::CspLayer(int64_t in_channels, int64_t out_channels, int64_t num_blocks) {
  conv1_ = register_module("conv1", conv_norm(in_channels, out_channels, 1, 1, true));
  conv2_ = register_module("conv2", conv_norm(in_channels, out_channels, 1, 1, true));
  auto bottlenecks = register_module("bottlenecks", torch::nn::ModuleList());
  for (int64_t i = 0; i < num_blocks; ++i) {
    bottlenecks_.push_back(std::make_shared<VggBlock>(out_channels, out_channels));
    bottlenecks->push_back(bottlenecks_.back());
  }
}

torch::Tensor CspLayer::forward(const torch::Tensor& x) {
  auto y = conv1_->forward(x);
  for (auto& block : bottlenecks_) y = block->forward(y);
  return y + conv2_->forward(x);
}

CspStage::CspStage(int64_t in_channels, int64_t out_channels, int64_t num_blocks) {
  csp_ = register_module("0", std::make_shared<CspLayer>(in_channels, out_channels, num_blocks));
  conv_ = register_module("1", conv_norm(out_channels, out_channels, 3, 1, true));
}

torch::Tensor CspStage::forward(const torch::Tensor& x) { return conv_->forward(csp_->forward(x)); }

RepNCSPELAN4::RepNCSPELAN4(int64_t c1, int64_t c2, int64_t c3, int64_t c4, int64_t num_blocks) : half_(c3 / 2) {
  if (c1 <= 0 || c2 <= 0 || c3 <= 0 || c4 <= 0 || c3 % 2 != 0 || num_blocks < 0)
    throw std::invalid_argument("RepNCSPELAN4: widths must be positive and c3 even, got c1=" + std::to_string(c1) +
                                " c2=" + std::to_string(c2) + " c3=" + std::to_string(c3) + " c4=" + std::to_string(c4) +
                                " blocks=" + std::to_string(num_blocks));
  cv1_ = register_module("cv1", conv_norm(c1, c3, 1, 1, true));
  cv2_ = register_module("cv2", std::make_shared<CspStage>(half_, c4, num_blocks));
  cv3_ = register_module("cv3", std::make_shared<CspStage>(c4, c4, num_blocks));
  cv4_ = register_module("cv4", conv_norm(c3 + 2 * c4, c2, 1, 1, true));
}

torch::Tensor RepNCSPELAN4::forward(const torch::Tensor& x) {
  const auto halves = cv1_->forward(x).split(half_, 1);
  const auto b = sdk::dense_slice(halves[1]);  // read by the CSP stage's two 1x1 convolutions and the concatenation
  const auto c = cv2_->forward(b);
  const auto d = cv3_->forward(c);
  return cv4_->forward(torch::cat({halves[0], b, c, d}, 1));
}

SCDown::SCDown(int64_t c1, int64_t c2, int64_t kernel, int64_t stride) {
  cv1_ = register_module("cv1", conv_norm(c1, c2, 1, 1, false));
  ConvNormOptions depthwise{c2, c2, kernel, stride};
  depthwise.groups = c2;
  cv2_ = register_module("cv2", std::make_shared<ConvNormLayer>(depthwise));
}

torch::Tensor SCDown::forward(const torch::Tensor& x) { return cv2_->forward(cv1_->forward(x)); }

}  // namespace libreyolo::dfine
