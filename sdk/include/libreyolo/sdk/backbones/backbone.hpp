#pragma once
// What a detector asks of its backbone: an image batch in, a few feature maps out (finest
// first), and their channel counts known before the first forward so that the neck or encoder
// can be built. RT-DETR's PResNet (plugins/rtdetr) and the HGNetv2 of this SDK (shared by
// RT-DETR and D-FINE) implement it; a parent registers one under "backbone":
//   backbone = register_module("backbone", sdk::backbones::make_hgnetv2("L", true, 0));

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
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

}  // namespace libreyolo::sdk::backbones
