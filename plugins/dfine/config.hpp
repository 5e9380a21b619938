#pragma once
// D-FINE's sizes as data: LibreYOLO's SIZE_CONFIGS (libreyolo/models/dfine/nn.py), which follow
// the official D-FINE configs (dfine_hgnetv2_{n,s,m,l,x}_coco.yml). Every size uses an HGNetv2
// backbone; n reads two levels (strides 16 and 32), the others three (8, 16, 32).

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::dfine {

struct DfineConfig {
  std::string size;
  // Backbone (sdk::backbones::HGNetv2, D-FINE layout).
  std::string backbone_arch;              // "B0", "B2", "B4", "B5"
  bool use_lab = false;                   // LearnableAffineBlock after every activation (n, s, m)
  bool freeze_norm = false;               // FrozenBatchNorm2d in the backbone (l, x)
  int freeze_at = 0;                      // 0 freezes the stem (freeze_stem_only=True at every size)
  std::vector<int64_t> return_idx{1, 2, 3};
  // Hybrid encoder.
  std::vector<int64_t> feat_strides{8, 16, 32};
  int64_t encoder_hidden_dim = 256;
  int64_t encoder_dim_feedforward = 1024;
  double encoder_expansion = 1.0;
  double encoder_depth_mult = 1.0;
  std::vector<int64_t> use_encoder_idx{2};  // the level AIFI runs on (the stride-32 one)
  // Decoder.
  int64_t decoder_hidden_dim = 256;
  int64_t decoder_dim_feedforward = 1024;
  int64_t num_decoder_layers = 6;
  std::vector<int64_t> num_points{3, 6, 3};  // deformable sampling points per level
  double reg_scale = 4.0;
  int64_t eval_idx = -1;  // the decoder layer inference reads (-1: the last)
  // Shared by every size.
  int64_t nhead = 8;
  int64_t num_queries = 300;
  int64_t reg_max = 32;
  int64_t num_denoising = 100;
  double label_noise_ratio = 0.5;
  double box_noise_scale = 1.0;

  int64_t num_levels() const { return static_cast<int64_t>(num_points.size()); }
  // eval_idx as a layer index in [0, num_decoder_layers).
  int64_t eval_layer() const { return eval_idx >= 0 ? eval_idx : num_decoder_layers + eval_idx; }
};

const std::vector<std::string>& dfine_sizes();
// Throws std::invalid_argument naming the sizes for an unknown one.
DfineConfig dfine_config(const std::string& size);

}  // namespace libreyolo::dfine
