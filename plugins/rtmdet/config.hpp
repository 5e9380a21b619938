#pragma once
// Per-size table of RTMDet t/s/m/l/x, as LibreYOLO's _SIZE_CONFIG (libreyolo/models/rtmdet/nn.py):
// deepen 0.167/0.33/0.67/1.0/1.33, widen 0.375/0.5/0.75/1.0/1.25, and the neck and head widths.
// The integers Python derives from the multipliers (int(c * widen), max(round(n * deepen), 1))
// are written out here, so no size depends on how a double rounds.

#include <array>
#include <cstdint>
#include <string>

namespace libreyolo::families::rtmdet {

constexpr std::array<int64_t, 3> kStrides{8, 16, 32};

// Candidates kept per level and image before NMS (mmdet's test_cfg nms_pre).
constexpr int64_t kNmsPre = 30000;

struct SizeConfig {
  const char* size;
  double deepen;                     // Python's deepen_factor (for display)
  double widen;                      // Python's widen_factor (for display)
  int64_t base_channels;             // int(64 * widen): the stem's output, stage1's input
  std::array<int64_t, 4> stage_blocks;  // CSPNeXtBlocks in stage1..4: max(round({3, 6, 6, 3} * deepen), 1)
  std::array<int64_t, 3> neck_in;    // stage2..4 outputs: int({256, 512, 1024} * widen)
  int64_t neck_out;                  // the neck's output width, also the head's width
  int64_t csp_blocks;                // CSPNeXtBlocks in each neck CSPLayer
  bool exp_on_reg;                   // reg distances exp(reg) * stride (m, l, x) instead of reg * stride

  // int(64 * widen // 2): the first two stem convs' width.
  int64_t stem_channels() const { return base_channels / 2; }
  // int({128, 256, 512, 1024} * widen): stage1..4 outputs.
  std::array<int64_t, 4> stage_channels() const {
    return {2 * base_channels, 4 * base_channels, 8 * base_channels, 16 * base_channels};
  }
};

// Throws std::invalid_argument naming the sizes for anything but t, s, m, l, x.
const SizeConfig& size_config(const std::string& size);

// The size whose backbone.stem.0.conv.weight has this many output channels (12, 16, 24, 32, 40
// -> t, s, m, l, x, as LibreYOLO's detect_size), or "" for any other count.
std::string size_from_stem_channels(int64_t channels);

}  // namespace libreyolo::families::rtmdet
