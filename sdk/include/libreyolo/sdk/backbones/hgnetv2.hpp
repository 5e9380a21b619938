#pragma once
// PP-HGNetV2, the backbone of RT-DETR's l/x sizes and of every D-FINE size, with the state-dict
// keys of LibreYOLO's two Python ports (libreyolo/models/rtdetr/hgnetv2.py, arch "L" "X" "H";
// libreyolo/models/dfine/backbone.py, arch "B0".."B6"). The two ports compute the same network;
// they differ only in naming, in init and in how they count frozen stages:
//
//                          RT-DETR (L, X, H)                     D-FINE (B0..B6)
//   stem2a/stem2b conv     stem.stem2a.conv.1.weight (padding    stem.stem2a.conv.weight
//                          module at index 0)
//   block aggregation      aggregation_squeeze_conv.*,           aggregation.0.*, aggregation.1.*
//                          aggregation_excitation_conv.*
//   conv init              kaiming_normal_                       PyTorch's default
//
// The arch name picks the layout (layout_of_arch). use_lab adds D-FINE's LearnableAffineBlock
// (keys lab.scale, lab.bias) after every activation, in either layout.
//
// Freezing follows RT-DETR's PResNet/HGNetv2 (freeze_at): -1 nothing, 0 the stem, k > 0 the stem
// and the first k stages; frozen parameters get requires_grad = false. D-FINE's own flags map
// onto it: freeze_stem_only=True (all its sizes) is freeze_at = 0; freeze_stem_only=False with
// its freeze_at = k freezes k + 1 stages, i.e. freeze_at = k + 1 here.
// freeze_norm builds sdk::FrozenBatchNorm2d (same keys minus num_batches_tracked) instead of
// sdk::BatchNorm2d everywhere in the backbone.

#include <torch/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/sdk/backbones/backbone.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::backbones {

enum class HGNetv2Layout { rtdetr, dfine };

// One stage as the Python arch tables list it.
struct HGNetv2StageSpec {
  int64_t in_channels;
  int64_t mid_channels;
  int64_t out_channels;
  int64_t num_blocks;
  bool downsample;   // a depthwise 3x3 stride-2 conv first (every stage but the first)
  bool light_block;  // 1x1 + depthwise kxk layers instead of full kxk convs
  int64_t kernel_size;
  int64_t layer_num;  // conv layers per block, all concatenated before the aggregation
};

struct HGNetv2Arch {
  std::array<int64_t, 3> stem_channels;  // in, mid, out
  std::array<HGNetv2StageSpec, 4> stages;
  HGNetv2Layout layout;
};

// The table entry for "L", "X", "H" (RT-DETR) or "B0".."B6" (D-FINE). Throws
// std::invalid_argument naming the known archs otherwise.
LIBREYOLO_SDK_API const HGNetv2Arch& hgnetv2_arch(const std::string& arch);

struct HGNetv2Options {
  std::string arch;
  bool use_lab = false;      // D-FINE n/s/m
  bool freeze_norm = false;  // RT-DETR l/x, D-FINE l/x
  int freeze_at = -1;        // see the header comment; both families' configs use 0
  std::vector<int64_t> return_idx{1, 2, 3};  // stages to return, strictly increasing, in [0, 3]
};

namespace detail {
class HGNetv2Stem;
class HGNetv2Stage;
}  // namespace detail

class LIBREYOLO_SDK_API HGNetv2Impl : public MultiScaleBackbone {
 public:
  // Throws std::invalid_argument for an unknown arch, bad return_idx or freeze_at < -1.
  explicit HGNetv2Impl(const HGNetv2Options& options);
  ~HGNetv2Impl() override;

  std::vector<torch::Tensor> forward(const torch::Tensor& images) override;
  std::vector<int64_t> out_channels() const override;
  std::vector<int64_t> out_strides() const override;

  const HGNetv2Options& options() const { return options_; }

 private:
  HGNetv2Options options_;
  std::shared_ptr<detail::HGNetv2Stem> stem_;
  std::vector<std::shared_ptr<detail::HGNetv2Stage>> stages_;
};

LIBREYOLO_SDK_API std::shared_ptr<HGNetv2Impl> make_hgnetv2(const HGNetv2Options& options);

// The RT-DETR call: make_hgnetv2("L", /*freeze_norm=*/true, /*freeze_at=*/0).
LIBREYOLO_SDK_API std::shared_ptr<HGNetv2Impl> make_hgnetv2(const std::string& arch, bool freeze_norm, int freeze_at,
                                                            bool use_lab = false,
                                                            std::vector<int64_t> return_idx = {1, 2, 3});

}  // namespace libreyolo::sdk::backbones
