#pragma once
// Per-size multipliers of YOLOX n/t/s/m/l/x, as LibreYOLO's LibreYOLOXModel.CONFIGS
// (libreyolo/models/yolox/nn.py): depth 0.33/0.33/0.33/0.67/1.0/1.33, width
// 0.25/0.375/0.5/0.75/1.0/1.25, depthwise convolutions for n only. The integers Python derives
// from them are written out here.

#include <array>
#include <cstdint>
#include <string>

namespace libreyolo::families::yolox {

constexpr std::array<int64_t, 3> kStrides{8, 16, 32};

struct SizeConfig {
  const char* size;
  double depth;           // Python's depth multiplier (for display)
  double width;           // Python's width multiplier (for display)
  bool depthwise;         // DWConv instead of BaseConv for 3x3 convolutions (n)
  int64_t base_channels;  // int(64 * width): the stem's output channels
  int64_t base_depth;     // max(round(3 * depth), 1): bottlenecks in dark2 and dark5 (x3 in dark3, dark4)
  int64_t neck_depth;     // round(3 * depth): bottlenecks in each PAFPN CSPLayer

  // int(256 * width), int(512 * width), int(1024 * width): the P3, P4, P5 widths (dark3..5).
  std::array<int64_t, 3> level_channels() const { return {4 * base_channels, 8 * base_channels, 16 * base_channels}; }
  // int(256 * width): the head's hidden width.
  int64_t head_channels() const { return 4 * base_channels; }
};

// Throws std::invalid_argument naming the sizes for anything but n, t, s, m, l, x.
const SizeConfig& size_config(const std::string& size);

}  // namespace libreyolo::families::yolox
