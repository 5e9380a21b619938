#include "presnet.hpp"

#include <torch/torch.h>

#include <array>
#include <map>
#include <stdexcept>
#include <string>

#include "presnet_blocks.hpp"

namespace libreyolo::rtdetr {
namespace {

constexpr std::array<int64_t, 4> kStageWidths{64, 128, 256, 512};
constexpr std::array<int64_t, 4> kStageStrides{4, 8, 16, 32};
constexpr int64_t kStemChannels = 64;

std::array<int64_t, 4> blocks_per_stage(int depth) {
  static const std::map<int, std::array<int64_t, 4>> table = {
      {18, {2, 2, 2, 2}}, {34, {3, 4, 6, 3}}, {50, {3, 4, 6, 3}}, {101, {3, 4, 23, 3}}};
  const auto found = table.find(depth);
  if (found == table.end())
    throw std::invalid_argument("PResNet: depth " + std::to_string(depth) +
                                " is not one LibreYOLO's RT-DETR builds; use 18, 34, 50 or 101");
  return found->second;
}

}  // namespace

PResNetImpl::PResNetImpl(const PResNetOptions& options) : options_(options) {
  const auto counts = blocks_per_stage(options.depth);
  sdk::backbones::check_stage_options("PResNet", options.return_idx, options.freeze_at);
  const bool bottleneck = options.depth >= 50;
  const bool frozen = options.freeze_norm;

  // Python's conv1 is an nn.Sequential with named children: a plain container gives the same
  // keys (conv1.conv1_1.conv.weight, ...).
  auto conv1 = register_module("conv1", std::make_shared<torch::nn::Module>());
  const std::array<std::array<int64_t, 3>, 3> stem_def{{{3, kStemChannels / 2, 2},
                                                        {kStemChannels / 2, kStemChannels / 2, 1},
                                                        {kStemChannels / 2, kStemChannels, 1}}};
  for (size_t i = 0; i < stem_def.size(); ++i) {
    ConvNormOptions conv{stem_def[i][0], stem_def[i][1], 3, stem_def[i][2]};
    conv.act = Activation::relu;
    conv.frozen_norm = frozen;
    stem_.push_back(conv1->register_module("conv1_" + std::to_string(i + 1), std::make_shared<ConvNormLayer>(conv)));
  }

  auto res_layers = register_module("res_layers", torch::nn::ModuleList());
  int64_t in_channels = kStemChannels;
  for (size_t i = 0; i < counts.size(); ++i) {
    stages_.push_back(std::make_shared<ResStage>(bottleneck, in_channels, kStageWidths[i], counts[i],
                                                 /*first_stage=*/i == 0, frozen));
    res_layers->push_back(stages_.back());
    in_channels = stages_.back()->out_channels();
  }

  if (options.freeze_at >= 0) {
    sdk::backbones::freeze_parameters(*conv1);
    const auto frozen_stages = std::min<size_t>(static_cast<size_t>(options.freeze_at), stages_.size());
    for (size_t i = 0; i < frozen_stages; ++i) sdk::backbones::freeze_parameters(*stages_[i]);
  }
}

PResNetImpl::~PResNetImpl() = default;

std::vector<torch::Tensor> PResNetImpl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == 3, "PResNet: expected images [N, 3, H, W], got ",
              images.sizes());
  auto x = images;
  for (auto& conv : stem_) x = conv->forward(x);
  x = torch::max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  std::vector<torch::Tensor> outputs;
  size_t next = 0;
  for (size_t i = 0; i < stages_.size() && next < options_.return_idx.size(); ++i) {
    x = stages_[i]->forward(x);
    if (static_cast<int64_t>(i) == options_.return_idx[next]) {
      outputs.push_back(x);
      ++next;
    }
  }
  return outputs;
}

std::vector<int64_t> PResNetImpl::out_channels() const {
  std::vector<int64_t> channels;
  for (const auto i : options_.return_idx) channels.push_back(stages_[static_cast<size_t>(i)]->out_channels());
  return channels;
}

std::vector<int64_t> PResNetImpl::out_strides() const {
  std::vector<int64_t> strides;
  for (const auto i : options_.return_idx) strides.push_back(kStageStrides[static_cast<size_t>(i)]);
  return strides;
}

std::shared_ptr<PResNetImpl> make_presnet(int depth, bool freeze_norm, int freeze_at) {
  PResNetOptions options;
  options.depth = depth;
  options.freeze_norm = freeze_norm;
  options.freeze_at = freeze_at;
  return std::make_shared<PResNetImpl>(options);
}

}  // namespace libreyolo::rtdetr
