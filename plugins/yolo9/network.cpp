#include "network.hpp"

#include <libreyolo/sdk/upsample.hpp>
#include <torch/torch.h>

#include <stdexcept>

namespace libreyolo::families::yolo9 {

namespace {

// clang-format off
const SizeConfig kSizes[] = {
    // size conv0 conv1 elan  first part adown  stages (down, elan, part) x3                spp  n   up1         up2         d1   down1       d2   down2       head
    {"t",  16,  32,  true,   32,   32, false, {{{64, 64, 64},    {96, 96, 96},    {128, 128, 128}}}, 128, 3, {96, 96},   {64, 64},   48,  {96, 96},   64,  {128, 128}, {{64, 96, 128}}},
    {"s",  32,  64,  true,   64,   64, false, {{{128, 128, 128}, {192, 192, 192}, {256, 256, 256}}}, 256, 3, {192, 192}, {128, 128}, 96,  {192, 192}, 128, {256, 256}, {{128, 192, 256}}},
    {"m",  32,  64,  false, 128,  128, false, {{{240, 240, 240}, {360, 360, 360}, {480, 480, 480}}}, 480, 1, {360, 360}, {240, 240}, 184, {360, 360}, 240, {480, 480}, {{240, 360, 480}}},
    {"c",  64, 128,  false, 256,  128, true,  {{{256, 512, 256}, {512, 512, 512}, {512, 512, 512}}}, 512, 1, {512, 512}, {256, 256}, 256, {512, 512}, 512, {512, 512}, {{256, 512, 512}}},
};
// clang-format on

RepNCSPELAN elan(int64_t in_channels, const ElanWidths& widths, int64_t repeats) {
  return RepNCSPELAN(in_channels, widths.part, widths.part / 2, widths.out, repeats);
}

}  // namespace

const SizeConfig& size_config(const std::string& size) {
  for (const auto& config : kSizes)
    if (size == config.size) return config;
  throw std::invalid_argument("YOLOv9 has no size '" + size + "': choose one of t, s, m, c");
}

Backbone9Impl::Backbone9Impl(const SizeConfig& cfg) {
  const int64_t n = cfg.repeat_num;
  conv0 = register_module("conv0", Conv(3, cfg.conv0_out, 3, 2));
  conv1 = register_module("conv1", Conv(cfg.conv0_out, cfg.conv1_out, 3, 2));
  if (cfg.first_block_elan) {
    const int64_t part = cfg.first_block_out;
    elan1_elan = register_module("elan1", ELAN(cfg.conv1_out, part, part / 2, cfg.first_block_out, 1));
  } else {
    const int64_t part = cfg.first_block_part;
    elan1_repncsp = register_module(
        "elan1", RepNCSPELAN(cfg.conv1_out, part, part / 2, cfg.first_block_out, n));
  }
  const auto& s = cfg.stages;
  down2 = DownSample(*this, "down2", cfg.adown, cfg.first_block_out, s[0].down_out);
  elan2 = register_module("elan2", RepNCSPELAN(s[0].down_out, s[0].part, s[0].part / 2, s[0].elan_out, n));
  down3 = DownSample(*this, "down3", cfg.adown, s[0].elan_out, s[1].down_out);
  elan3 = register_module("elan3", RepNCSPELAN(s[1].down_out, s[1].part, s[1].part / 2, s[1].elan_out, n));
  down4 = DownSample(*this, "down4", cfg.adown, s[1].elan_out, s[2].down_out);
  elan4 = register_module("elan4", RepNCSPELAN(s[2].down_out, s[2].part, s[2].part / 2, s[2].elan_out, n));
  spp = register_module("spp", SPPELAN(s[2].elan_out, cfg.spp_out / 2, cfg.spp_out));
}

FeatureMaps Backbone9Impl::forward(const torch::Tensor& images) {
  auto x = conv1->forward(conv0->forward(images));
  x = elan1_elan ? elan1_elan->forward(x) : elan1_repncsp->forward(x);
  auto p3 = elan2->forward(down2(x));
  auto p4 = elan3->forward(down3(p3));
  auto p5 = spp->forward(elan4->forward(down4(p4)));
  return {p3, p4, p5};
}

Neck9Impl::Neck9Impl(const SizeConfig& cfg) {
  const int64_t n = cfg.repeat_num;
  const int64_t b3 = cfg.stages[0].elan_out, b4 = cfg.stages[1].elan_out, spp = cfg.spp_out;
  elan_up1 = register_module("elan_up1", elan(spp + b4, cfg.neck_elan_up1, n));
  elan_up2 = register_module("elan_up2", elan(cfg.neck_elan_up1.out + b3, cfg.neck_elan_up2, n));
  down1 = DownSample(*this, "down1", cfg.adown, cfg.neck_elan_up2.out, cfg.neck_down1_out);
  elan_down1 = register_module(
      "elan_down1", elan(cfg.neck_down1_out + cfg.neck_elan_up1.out, cfg.neck_elan_down1, n));
  down2 = DownSample(*this, "down2", cfg.adown, cfg.neck_elan_down1.out, cfg.neck_down2_out);
  elan_down2 = register_module("elan_down2", elan(cfg.neck_down2_out + spp, cfg.neck_elan_down2, n));
}

Neck9Impl::TopDown Neck9Impl::top_down(const FeatureMaps& features) {
  const auto& [p3, p4, p5] = features;
  auto n4 = elan_up1->forward(torch::cat({sdk::upsample_nearest_2x(p5), p4}, 1));
  auto out3 = elan_up2->forward(torch::cat({sdk::upsample_nearest_2x(n4), p3}, 1));
  return {n4, out3};
}

std::array<torch::Tensor, 2> Neck9Impl::bottom_up(const TopDown& top, const torch::Tensor& p5) {
  auto out4 = elan_down1->forward(torch::cat({down1(top.out3), top.n4}, 1));
  auto out5 = elan_down2->forward(torch::cat({down2(out4), p5}, 1));
  return {out4, out5};
}

}  // namespace libreyolo::families::yolo9
