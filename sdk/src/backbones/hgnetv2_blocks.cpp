#include "hgnetv2_blocks.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::backbones::detail {

LearnableAffine::LearnableAffine() {
  // LibreYOLO's LearnableAffineBlock(scale_value=1.0, bias_value=0.0): an identity at first.
  scale = register_parameter("scale", torch::ones({1}));
  bias = register_parameter("bias", torch::zeros({1}));
}

torch::Tensor LearnableAffine::forward(const torch::Tensor& x) { return scale * x + bias; }

ConvBNAct::ConvBNAct(const ConvSpec& spec, const BlockStyle& style) : spec_(spec) {
  const int64_t padding = spec.pad_right_bottom ? 0 : (spec.kernel_size - 1) / 2;
  conv_ = torch::nn::Conv2d(torch::nn::Conv2dOptions(spec.in_channels, spec.out_channels, spec.kernel_size)
                                .stride(spec.stride)
                                .padding(padding)
                                .groups(spec.groups)
                                .bias(false));
  // RT-DETR's HGNetv2._init_weights; D-FINE's port keeps PyTorch's default conv init.
  if (style.layout == HGNetv2Layout::rtdetr) torch::nn::init::kaiming_normal_(conv_->weight);
  if (spec.pad_right_bottom && style.layout == HGNetv2Layout::rtdetr) {
    // RT-DETR's port wraps the conv as Sequential(ZeroPad2d, Conv2d): the weight's key is
    // conv.1.weight. The padding module has no state; forward pads by itself.
    register_module("conv", torch::nn::Sequential(torch::nn::ZeroPad2d(torch::nn::ZeroPad2dOptions({0, 1, 0, 1})),
                                                  conv_));
  } else {
    register_module("conv", conv_);
  }
  if (style.frozen_norm) {
    frozen_bn_ = register_module("bn", sdk::FrozenBatchNorm2d(spec.out_channels));
  } else {
    bn_ = register_module("bn", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(spec.out_channels)));
  }
  // Both ports add the affine only behind an activation.
  if (spec.act && style.use_lab) lab_ = register_module("lab", std::make_shared<LearnableAffine>());
}

torch::Tensor ConvBNAct::forward(const torch::Tensor& x) {
  auto y = conv_->forward(spec_.pad_right_bottom ? torch::constant_pad_nd(x, {0, 1, 0, 1}) : x);
  y = bn_ ? bn_->forward(y) : frozen_bn_->forward(y);
  if (!spec_.act) return y;
  y = torch::relu(y);
  return lab_ ? lab_->forward(y) : y;
}

LightConvBNAct::LightConvBNAct(int64_t in_channels, int64_t out_channels, int64_t kernel_size,
                               const BlockStyle& style) {
  conv1_ = register_module("conv1", std::make_shared<ConvBNAct>(ConvSpec{in_channels, out_channels, 1, 1, 1, false},
                                                                style));
  conv2_ = register_module(
      "conv2", std::make_shared<ConvBNAct>(ConvSpec{out_channels, out_channels, kernel_size, 1, out_channels}, style));
}

torch::Tensor LightConvBNAct::forward(const torch::Tensor& x) { return conv2_->forward(conv1_->forward(x)); }

HGNetv2Stem::HGNetv2Stem(const std::array<int64_t, 3>& channels, const BlockStyle& style) {
  const auto [in, mid, out] = channels;
  const auto make = [&](const char* name, const ConvSpec& spec) {
    return register_module(name, std::make_shared<ConvBNAct>(spec, style));
  };
  stem1_ = make("stem1", {in, mid, 3, 2});
  stem2a_ = make("stem2a", {mid, mid / 2, 2, 1, 1, true, true});
  stem2b_ = make("stem2b", {mid / 2, mid, 2, 1, 1, true, true});
  stem3_ = make("stem3", {mid * 2, mid, 3, 2});
  stem4_ = make("stem4", {mid, out, 1, 1});
}

torch::Tensor HGNetv2Stem::forward(const torch::Tensor& x) {
  const auto y = stem1_->forward(x);
  const auto convolved = stem2b_->forward(stem2a_->forward(y));
  // Zero padding, not -inf: with use_lab the activations can be negative, and both ports pad
  // with zeros before this pool.
  const auto pooled = torch::max_pool2d(torch::constant_pad_nd(y, {0, 1, 0, 1}), {2, 2}, {1, 1}, {0, 0}, {1, 1},
                                        /*ceil_mode=*/true);
  return stem4_->forward(stem3_->forward(torch::cat({pooled, convolved}, 1)));
}

HGBlock::HGBlock(int64_t in_channels, const HGNetv2StageSpec& spec, bool residual, const BlockStyle& style)
    : residual_(residual) {
  auto layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < spec.layer_num; ++i) {
    const int64_t layer_in = i == 0 ? in_channels : spec.mid_channels;
    torch::nn::AnyModule layer;
    if (spec.light_block) {
      layer = torch::nn::AnyModule(
          std::make_shared<LightConvBNAct>(layer_in, spec.mid_channels, spec.kernel_size, style));
    } else {
      layer = torch::nn::AnyModule(
          std::make_shared<ConvBNAct>(ConvSpec{layer_in, spec.mid_channels, spec.kernel_size}, style));
    }
    layers->push_back(layer.ptr());
    layers_.push_back(std::move(layer));
  }
  const int64_t total = in_channels + spec.layer_num * spec.mid_channels;
  squeeze_ = std::make_shared<ConvBNAct>(ConvSpec{total, spec.out_channels / 2, 1}, style);
  excitation_ = std::make_shared<ConvBNAct>(ConvSpec{spec.out_channels / 2, spec.out_channels, 1}, style);
  if (style.layout == HGNetv2Layout::rtdetr) {
    register_module("aggregation_squeeze_conv", squeeze_);
    register_module("aggregation_excitation_conv", excitation_);
  } else {
    // D-FINE's agg="se": nn.Sequential(squeeze, excitation) named "aggregation".
    register_module("aggregation", torch::nn::Sequential(squeeze_, excitation_));
  }
}

torch::Tensor HGBlock::forward(const torch::Tensor& x) {
  std::vector<torch::Tensor> outputs{x};
  outputs.reserve(layers_.size() + 1);
  for (auto& layer : layers_) outputs.push_back(layer.forward<torch::Tensor>(outputs.back()));
  auto y = excitation_->forward(squeeze_->forward(torch::cat(outputs, 1)));
  return residual_ ? y + x : y;
}

HGNetv2Stage::HGNetv2Stage(const HGNetv2StageSpec& spec, const BlockStyle& style) {
  if (spec.downsample) {
    downsample_ = register_module(
        "downsample", std::make_shared<ConvBNAct>(
                          ConvSpec{spec.in_channels, spec.in_channels, 3, 2, spec.in_channels, false}, style));
  }
  auto blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < spec.num_blocks; ++i) {
    const int64_t block_in = i == 0 ? spec.in_channels : spec.out_channels;
    blocks_.push_back(std::make_shared<HGBlock>(block_in, spec, /*residual=*/i != 0, style));
    blocks->push_back(blocks_.back());
  }
}

torch::Tensor HGNetv2Stage::forward(const torch::Tensor& x) {
  auto y = downsample_ ? downsample_->forward(x) : x;
  for (auto& block : blocks_) y = block->forward(y);
  return y;
}

}  // namespace libreyolo::sdk::backbones::detail
