#pragma once
// RT-DETR's sizes as data: LibreYOLO's RTDETR_CONFIGS (models/rtdetr/model.py), which follow
// the official RT-DETR configs. r18-r101 use a PResNet-vd backbone, l and x HGNetv2.

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::rtdetr {

struct RtdetrConfig {
  std::string size;
  std::string backbone;        // "presnet" or "hgnetv2"
  int presnet_depth = 0;       // 18, 34, 50, 101 (presnet)
  std::string hgnetv2_arch;    // "L", "X" (hgnetv2)
  bool freeze_norm = false;    // FrozenBatchNorm2d in the backbone (r50 and up, l, x)
  int freeze_at = 0;           // 0 freezes the stem (LibreYOLO's default for every size)
  int64_t encoder_hidden_dim = 256;
  int64_t encoder_dim_feedforward = 1024;
  double encoder_expansion = 1.0;
  int64_t decoder_hidden_dim = 256;
  int64_t decoder_dim_feedforward = 1024;
  int64_t num_decoder_layers = 6;
  int64_t eval_idx = -1;       // the decoder layer inference reads (-1: the last)
  // Shared by every size.
  int64_t nhead = 8;
  int64_t num_queries = 300;
  int64_t num_levels = 3;
  int64_t num_points = 4;
  int64_t num_denoising = 100;
  double label_noise_ratio = 0.5;
  double box_noise_scale = 1.0;

  // eval_idx as a layer index in [0, num_decoder_layers).
  int64_t eval_layer() const { return eval_idx >= 0 ? eval_idx : num_decoder_layers + eval_idx; }
};

const std::vector<std::string>& rtdetr_sizes();
// Throws std::invalid_argument naming the sizes for an unknown one.
RtdetrConfig rtdetr_config(const std::string& size);

}  // namespace libreyolo::rtdetr
