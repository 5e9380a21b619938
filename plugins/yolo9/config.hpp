#pragma once
// Per-size channel tables of YOLOv9 t/s/m/c, as LibreYOLO's YOLO9_CONFIGS
// (libreyolo/models/yolo9/nn.py).

#include <array>
#include <cstdint>
#include <string>

namespace libreyolo::families::yolo9 {

struct ElanWidths {
  int64_t out;   // output channels
  int64_t part;  // cv1's output channels ("part_channels"); cv2/cv3 use part / 2
};

struct StageWidths {
  int64_t down_out;  // AConv / ADown output channels
  int64_t elan_out;  // RepNCSPELAN output channels
  int64_t part;      // RepNCSPELAN part channels
};

struct SizeConfig {
  const char* size;
  int64_t conv0_out;
  int64_t conv1_out;
  bool first_block_elan;     // ELAN (t, s) or RepNCSPELAN (m, c)
  int64_t first_block_out;
  int64_t first_block_part;  // RepNCSPELAN only; the ELAN's part is first_block_out
  bool adown;                // ADown (c) or AConv (t, s, m) for every downsampling
  std::array<StageWidths, 3> stages;  // B3, B4, B5
  int64_t spp_out;
  int64_t repeat_num;  // RepNCSP bottlenecks per RepNCSPELAN
  ElanWidths neck_elan_up1;
  ElanWidths neck_elan_up2;
  int64_t neck_down1_out;
  ElanWidths neck_elan_down1;
  int64_t neck_down2_out;
  ElanWidths neck_elan_down2;
  std::array<int64_t, 3> head_channels;  // P3, P4, P5
};

// Throws std::invalid_argument naming the sizes for anything but t, s, m, c.
const SizeConfig& size_config(const std::string& size);

}  // namespace libreyolo::families::yolo9
