#pragma once
// What a detector asks of its backbone: an image batch in, a few feature maps out (finest
// first), and their channel counts known before the first forward so that the neck or encoder
// can be built. RT-DETR's PResNet (plugins/rtdetr) and the HGNetv2 of this SDK (shared by
// RT-DETR and D-FINE) implement it; a parent registers one under "backbone":
//   backbone = register_module("backbone", sdk::backbones::make_hgnetv2("L", true, 0));

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::backbones {

class LIBREYOLO_SDK_API MultiScaleBackbone : public torch::nn::Module {
 public:
  // Out of line: anchors the vtable and typeinfo in libreyolo_sdk.so, so that a backbone built
  // in one library and used through this type in another is the same type to both.
  ~MultiScaleBackbone() override;

  // `images` [N, 3, H, W] -> one [N, out_channels()[i], H / out_strides()[i], ...] map per
  // returned stage, in the order of out_channels().
  virtual std::vector<torch::Tensor> forward(const torch::Tensor& images) = 0;

  virtual std::vector<int64_t> out_channels() const = 0;
  virtual std::vector<int64_t> out_strides() const = 0;
};

// The options every four-stage backbone shares, checked alike: return_idx strictly increasing
// stage indices in [0, 3], freeze_at -1 (nothing), 0 (the stem) or k > 0 (the stem and k
// stages). Throws std::invalid_argument naming `backbone` and the offending value.
LIBREYOLO_SDK_API void check_stage_options(const std::string& backbone, const std::vector<int64_t>& return_idx,
                                           int freeze_at);

// requires_grad = false on every parameter of `module` (LibreYOLO's _freeze_parameters).
LIBREYOLO_SDK_API void freeze_parameters(torch::nn::Module& module);

}  // namespace libreyolo::sdk::backbones
