#pragma once
// YOLOv9's backbone (Backbone9) and PAN neck (Neck9), as in LibreYOLO's nn.py.

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <array>

#include "blocks.hpp"
#include "config.hpp"

namespace libreyolo::families::yolo9 {

using FeatureMaps = std::array<torch::Tensor, 3>;  // strides 8, 16, 32

// conv0 -> conv1 -> elan1 -> (down2 -> elan2 = P3) -> (down3 -> elan3 = P4)
//   -> down4 -> elan4 -> spp = P5
class Backbone9Impl : public torch::nn::Module {
 public:
  explicit Backbone9Impl(const SizeConfig& config);
  FeatureMaps forward(const torch::Tensor& x);

  Conv conv0{nullptr};
  Conv conv1{nullptr};
  ELAN elan1_elan{nullptr};            // "elan1" for t and s
  RepNCSPELAN elan1_repncsp{nullptr};  // "elan1" for m and c
  DownSample down2, down3, down4;
  RepNCSPELAN elan2{nullptr};
  RepNCSPELAN elan3{nullptr};
  RepNCSPELAN elan4{nullptr};
  SPPELAN spp{nullptr};
};
TORCH_MODULE(Backbone9);

// Top-down: up(P5) + P4 -> elan_up1 (N4); up(N4) + P3 -> elan_up2 (out P3).
// Bottom-up: down1(P3) + N4 -> elan_down1 (out P4); down2(P4) + P5 -> elan_down2 (out P5).
class Neck9Impl : public torch::nn::Module {
 public:
  // What the top-down path hands the bottom-up one: N4 and the finished P3 output.
  struct TopDown {
    torch::Tensor n4, out3;
  };

  explicit Neck9Impl(const SizeConfig& config);
  // The neck in two halves (the detector calls both), so that P3's head can start before the
  // bottom-up path.
  TopDown top_down(const FeatureMaps& backbone_features);
  std::array<torch::Tensor, 2> bottom_up(const TopDown& top, const torch::Tensor& backbone_p5);  // out P4, out P5

  RepNCSPELAN elan_up1{nullptr};
  RepNCSPELAN elan_up2{nullptr};
  DownSample down1, down2;
  RepNCSPELAN elan_down1{nullptr};
  RepNCSPELAN elan_down2{nullptr};
};
TORCH_MODULE(Neck9);

}  // namespace libreyolo::families::yolo9
