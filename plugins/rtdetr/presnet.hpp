#pragma once
// PResNet-vd, the backbone of RT-DETR's r18/r34/r50/r50m/r101 sizes (LibreYOLO's
// libreyolo/models/rtdetr/backbone.py, variant "d", ported from the official RT-DETR): a 3-conv
// 3x3 stem, a 3x3 stride-2 max pool, four stages of BasicBlocks (depth 18, 34) or BottleNecks
// (50, 101) whose stride-2 shortcuts average-pool before their 1x1 conv. Returns stages 1, 2, 3
// (strides 8, 16, 32). Keys match LibreYOLO's: conv1.conv1_{1,2,3}.*,
// res_layers.<s>.blocks.<b>.{short, branch2a, branch2b[, branch2c]}.*. Init is PyTorch's default
// (LibreYOLO sets none).

#include <libreyolo/sdk/backbones/backbone.hpp>

#include "conv_norm.hpp"
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace libreyolo::rtdetr {

class ResStage;  // presnet_blocks.hpp

struct PResNetOptions {
  int depth = 50;            // 18, 34, 50 or 101
  bool freeze_norm = true;   // FrozenBatchNorm2d everywhere (r50 and up)
  int freeze_at = -1;        // -1 nothing; 0 the stem (conv1); k > 0 conv1 and the first k stages
  std::vector<int64_t> return_idx{1, 2, 3};  // strictly increasing stage indices in [0, 3]
};

class PResNetImpl : public sdk::backbones::MultiScaleBackbone {
 public:
  // Throws std::invalid_argument for another depth, bad return_idx or freeze_at < -1.
  explicit PResNetImpl(const PResNetOptions& options);
  ~PResNetImpl() override;

  std::vector<torch::Tensor> forward(const torch::Tensor& images) override;
  std::vector<int64_t> out_channels() const override;
  std::vector<int64_t> out_strides() const override;

 private:
  PResNetOptions options_;
  std::vector<std::shared_ptr<ConvNormLayer>> stem_;  // conv1_1, conv1_2, conv1_3
  std::vector<std::shared_ptr<ResStage>> stages_;
};

// The RT-DETR call; frozen parameters get requires_grad = false, as LibreYOLO's
// _freeze_parameters does. Register the result as "backbone".
std::shared_ptr<PResNetImpl> make_presnet(int depth, bool freeze_norm, int freeze_at);

}  // namespace libreyolo::rtdetr
