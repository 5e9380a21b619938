#include "libreyolo/sdk/backbones/hgnetv2.hpp"

#include <torch/torch.h>

#include <map>
#include <stdexcept>
#include <utility>

#include "hgnetv2_blocks.hpp"

namespace libreyolo::sdk::backbones {
namespace {

using Layout = HGNetv2Layout;

// LibreYOLO's arch_configs: per stage in, mid, out, blocks, downsample, light, kernel, layers.
// RT-DETR's L and X equal D-FINE's B4 and B5; only the layout differs.
const std::map<std::string, HGNetv2Arch>& arch_table() {
  static const std::map<std::string, HGNetv2Arch> table = {
      {"L", {{3, 32, 48}, {{{48, 48, 128, 1, false, false, 3, 6}, {128, 96, 512, 1, true, false, 3, 6},
                            {512, 192, 1024, 3, true, true, 5, 6}, {1024, 384, 2048, 1, true, true, 5, 6}}},
             Layout::rtdetr}},
      {"X", {{3, 32, 64}, {{{64, 64, 128, 1, false, false, 3, 6}, {128, 128, 512, 2, true, false, 3, 6},
                            {512, 256, 1024, 5, true, true, 5, 6}, {1024, 512, 2048, 2, true, true, 5, 6}}},
             Layout::rtdetr}},
      {"H", {{3, 48, 96}, {{{96, 96, 192, 2, false, false, 3, 6}, {192, 192, 512, 3, true, false, 3, 6},
                            {512, 384, 1024, 6, true, true, 5, 6}, {1024, 768, 2048, 3, true, true, 5, 6}}},
             Layout::rtdetr}},
      {"B0", {{3, 16, 16}, {{{16, 16, 64, 1, false, false, 3, 3}, {64, 32, 256, 1, true, false, 3, 3},
                             {256, 64, 512, 2, true, true, 5, 3}, {512, 128, 1024, 1, true, true, 5, 3}}},
              Layout::dfine}},
      {"B1", {{3, 24, 32}, {{{32, 32, 64, 1, false, false, 3, 3}, {64, 48, 256, 1, true, false, 3, 3},
                             {256, 96, 512, 2, true, true, 5, 3}, {512, 192, 1024, 1, true, true, 5, 3}}},
              Layout::dfine}},
      {"B2", {{3, 24, 32}, {{{32, 32, 96, 1, false, false, 3, 4}, {96, 64, 384, 1, true, false, 3, 4},
                             {384, 128, 768, 3, true, true, 5, 4}, {768, 256, 1536, 1, true, true, 5, 4}}},
              Layout::dfine}},
      {"B3", {{3, 24, 32}, {{{32, 32, 128, 1, false, false, 3, 5}, {128, 64, 512, 1, true, false, 3, 5},
                             {512, 128, 1024, 3, true, true, 5, 5}, {1024, 256, 2048, 1, true, true, 5, 5}}},
              Layout::dfine}},
      {"B4", {{3, 32, 48}, {{{48, 48, 128, 1, false, false, 3, 6}, {128, 96, 512, 1, true, false, 3, 6},
                             {512, 192, 1024, 3, true, true, 5, 6}, {1024, 384, 2048, 1, true, true, 5, 6}}},
              Layout::dfine}},
      {"B5", {{3, 32, 64}, {{{64, 64, 128, 1, false, false, 3, 6}, {128, 128, 512, 2, true, false, 3, 6},
                             {512, 256, 1024, 5, true, true, 5, 6}, {1024, 512, 2048, 2, true, true, 5, 6}}},
              Layout::dfine}},
      {"B6", {{3, 48, 96}, {{{96, 96, 192, 2, false, false, 3, 6}, {192, 192, 512, 3, true, false, 3, 6},
                             {512, 384, 1024, 6, true, true, 5, 6}, {1024, 768, 2048, 3, true, true, 5, 6}}},
              Layout::dfine}},
  };
  return table;
}

constexpr std::array<int64_t, 4> kStageStrides{4, 8, 16, 32};

}  // namespace

const HGNetv2Arch& hgnetv2_arch(const std::string& arch) {
  const auto& table = arch_table();
  const auto found = table.find(arch);
  if (found == table.end())
    throw std::invalid_argument("HGNetv2: unknown arch '" + arch +
                                "'; known: L, X, H (RT-DETR's keys) and B0, B1, B2, B3, B4, B5, B6 (D-FINE's keys)");
  return found->second;
}

HGNetv2Impl::HGNetv2Impl(const HGNetv2Options& options) : options_(options) {
  const auto& arch = hgnetv2_arch(options.arch);
  check_stage_options("HGNetv2", options.return_idx, options.freeze_at);
  const detail::BlockStyle style{arch.layout, options.use_lab, options.freeze_norm};
  stem_ = register_module("stem", std::make_shared<detail::HGNetv2Stem>(arch.stem_channels, style));
  auto stages = register_module("stages", torch::nn::ModuleList());
  for (const auto& spec : arch.stages) {
    stages_.push_back(std::make_shared<detail::HGNetv2Stage>(spec, style));
    stages->push_back(stages_.back());
  }
  if (options.freeze_at >= 0) {
    freeze_parameters(*stem_);
    const auto frozen_stages = std::min<size_t>(static_cast<size_t>(options.freeze_at), stages_.size());
    for (size_t i = 0; i < frozen_stages; ++i) freeze_parameters(*stages_[i]);
  }
}

HGNetv2Impl::~HGNetv2Impl() = default;

std::vector<torch::Tensor> HGNetv2Impl::forward(const torch::Tensor& images) {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == hgnetv2_arch(options_.arch).stem_channels[0],
              "HGNetv2: expected images [N, 3, H, W], got ", images.sizes());
  std::vector<torch::Tensor> outputs;
  auto x = stem_->forward(images);
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

std::vector<int64_t> HGNetv2Impl::out_channels() const {
  const auto& arch = hgnetv2_arch(options_.arch);
  std::vector<int64_t> channels;
  for (const auto i : options_.return_idx) channels.push_back(arch.stages[static_cast<size_t>(i)].out_channels);
  return channels;
}

std::vector<int64_t> HGNetv2Impl::out_strides() const {
  std::vector<int64_t> strides;
  for (const auto i : options_.return_idx) strides.push_back(kStageStrides[static_cast<size_t>(i)]);
  return strides;
}

std::shared_ptr<HGNetv2Impl> make_hgnetv2(const HGNetv2Options& options) {
  return std::make_shared<HGNetv2Impl>(options);
}

std::shared_ptr<HGNetv2Impl> make_hgnetv2(const std::string& arch, bool freeze_norm, int freeze_at, bool use_lab,
                                          std::vector<int64_t> return_idx) {
  HGNetv2Options options;
  options.arch = arch;
  options.use_lab = use_lab;
  options.freeze_norm = freeze_norm;
  options.freeze_at = freeze_at;
  options.return_idx = std::move(return_idx);
  return make_hgnetv2(options);
}

}  // namespace libreyolo::sdk::backbones
