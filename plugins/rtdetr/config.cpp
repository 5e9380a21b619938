#include "config.hpp"

#include <stdexcept>

namespace libreyolo::rtdetr {
namespace {

RtdetrConfig presnet(const std::string& size, int depth, bool freeze_norm, double expansion, int64_t layers) {
  RtdetrConfig c;
  c.size = size;
  c.backbone = "presnet";
  c.presnet_depth = depth;
  c.freeze_norm = freeze_norm;
  c.encoder_expansion = expansion;
  c.num_decoder_layers = layers;
  return c;
}

RtdetrConfig hgnetv2(const std::string& size, const std::string& arch) {
  RtdetrConfig c;
  c.size = size;
  c.backbone = "hgnetv2";
  c.hgnetv2_arch = arch;
  c.freeze_norm = true;
  c.encoder_expansion = 1.0;
  c.num_decoder_layers = 6;
  return c;
}

// The wide sizes: a 384-channel encoder with a 2048-wide feed-forward; the decoder stays 256.
RtdetrConfig wide(RtdetrConfig c) {
  c.encoder_hidden_dim = 384;
  c.encoder_dim_feedforward = 2048;
  return c;
}

RtdetrConfig r50m() {
  auto c = presnet("r50m", 50, true, 0.5, 6);
  c.eval_idx = 2;  // the "m" model: six layers trained, the third one used for inference
  return c;
}

}  // namespace

const std::vector<std::string>& rtdetr_sizes() {
  static const std::vector<std::string> sizes{"r18", "r34", "r50", "r50m", "r101", "l", "x"};
  return sizes;
}

RtdetrConfig rtdetr_config(const std::string& size) {
  if (size == "r18") return presnet(size, 18, false, 0.5, 3);
  if (size == "r34") return presnet(size, 34, false, 0.5, 4);
  if (size == "r50") return presnet(size, 50, true, 1.0, 6);
  if (size == "r50m") return r50m();
  if (size == "r101") return wide(presnet(size, 101, true, 1.0, 6));
  if (size == "l") return hgnetv2(size, "L");
  if (size == "x") return wide(hgnetv2(size, "X"));
  std::string known;
  for (const auto& s : rtdetr_sizes()) known += (known.empty() ? "" : ", ") + s;
  throw std::invalid_argument("unknown RT-DETR size '" + size + "': use one of " + known);
}

}  // namespace libreyolo::rtdetr
