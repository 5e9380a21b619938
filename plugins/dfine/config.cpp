#include "config.hpp"

#include <stdexcept>

namespace libreyolo::dfine {
namespace {

// n: the smallest model reads only strides 16 and 32 (B0's last two stages) with 128 channels.
DfineConfig nano() {
  DfineConfig c;
  c.size = "n";
  c.backbone_arch = "B0";
  c.use_lab = true;
  c.return_idx = {2, 3};
  c.feat_strides = {16, 32};
  c.encoder_hidden_dim = 128;
  c.encoder_dim_feedforward = 512;
  c.encoder_expansion = 0.34;
  c.encoder_depth_mult = 0.5;
  c.use_encoder_idx = {1};
  c.decoder_hidden_dim = 128;
  c.decoder_dim_feedforward = 512;
  c.num_decoder_layers = 3;
  c.num_points = {6, 6};
  return c;
}

DfineConfig three_levels(const std::string& size, const std::string& arch, bool use_lab, double expansion,
                         double depth_mult, int64_t layers) {
  DfineConfig c;
  c.size = size;
  c.backbone_arch = arch;
  c.use_lab = use_lab;
  c.freeze_norm = !use_lab;  // l and x: frozen BatchNorm instead of the learnable affine blocks
  c.encoder_expansion = expansion;
  c.encoder_depth_mult = depth_mult;
  c.num_decoder_layers = layers;
  return c;
}

// x: a 384-channel encoder with a 2048-wide feed-forward; the decoder stays 256 (so only x has
// the decoder's input projection), and the FDR bins reach twice as far (reg_scale 8).
DfineConfig extra_large() {
  auto c = three_levels("x", "B5", false, 1.0, 1.0, 6);
  c.encoder_hidden_dim = 384;
  c.encoder_dim_feedforward = 2048;
  c.reg_scale = 8.0;
  return c;
}

}  // namespace

const std::vector<std::string>& dfine_sizes() {
  static const std::vector<std::string> sizes{"n", "s", "m", "l", "x"};
  return sizes;
}

DfineConfig dfine_config(const std::string& size) {
  if (size == "n") return nano();
  if (size == "s") return three_levels(size, "B0", true, 0.5, 0.34, 3);
  if (size == "m") return three_levels(size, "B2", true, 1.0, 0.67, 4);
  if (size == "l") return three_levels(size, "B4", false, 1.0, 1.0, 6);
  if (size == "x") return extra_large();
  std::string known;
  for (const auto& s : dfine_sizes()) known += (known.empty() ? "" : ", ") + s;
  throw std::invalid_argument("unknown D-FINE size '" + size + "': use one of " + known);
}

}  // namespace libreyolo::dfine
