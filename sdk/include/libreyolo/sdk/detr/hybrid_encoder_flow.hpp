#pragma once
// What the DETR families' hybrid encoders share around their own blocks (LibreYOLO's
// HybridEncoder in RT-DETR and D-FINE): the position embedding cached per map size, AIFI over one
// projected map, and CCFF's order of operations (a top-down FPN, then a bottom-up PAN). Each
// family keeps its blocks (RT-DETR: CSPRepLayer and strided convolutions; D-FINE: RepNCSPELAN4
// and SCDown) and hands them in as functions.

#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "libreyolo/sdk/detr/transformer_encoder.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// The sin-cos embedding (sincos_position_embedding_2d) of an h x w map in `like`'s device and
// dtype, built on first use (device operations only) and kept per (h, w, device, dtype), so
// steady-state steps and CUDA graph replays of a capture made after a warm-up step allocate
// nothing for it. Built in float32 and cast, as LibreYOLO adds it to the features.
class LIBREYOLO_SDK_API PositionEmbeddingCache {
 public:
  PositionEmbeddingCache(int64_t dim, double temperature) : dim_(dim), temperature_(temperature) {}
  torch::Tensor get(int64_t h, int64_t w, const torch::Tensor& like);

 private:
  struct Entry {
    int64_t h, w;
    torch::Device device;
    torch::ScalarType dtype;
    torch::Tensor value;
  };
  int64_t dim_;
  double temperature_;
  std::vector<Entry> entries_;
};

// AIFI on one projected map [N, C, H, W]: flattened to H * W tokens, encoded with the map's
// position embedding, and folded back to a contiguous [N, C, H, W].
LIBREYOLO_SDK_API torch::Tensor encode_map(TransformerEncoder& encoder, const torch::Tensor& projected,
                                           PositionEmbeddingCache& embeddings);

// AIFI on the chosen levels: projected[levels[i]] replaced by encoders[i]'s encode_map. Encoders
// without layers (num_encoder_layers 0) leave their level as it is, as LibreYOLO skips them.
LIBREYOLO_SDK_API void encode_levels(const std::vector<std::shared_ptr<TransformerEncoder>>& encoders,
                                     const std::vector<int64_t>& levels, std::vector<torch::Tensor>& projected,
                                     PositionEmbeddingCache& embeddings);

// CCFF's blocks, indexed as LibreYOLO's ModuleLists are: lateral and fpn_block by k = 0 for the
// coarsest step, downsample and pan_block by level = 0 for the finest.
struct CrossScaleBlocks {
  std::function<torch::Tensor(size_t, const torch::Tensor&)> lateral, fpn_block, downsample, pan_block;
};

// projected: one map per level, finest first, each half the size of the previous one. Top-down:
// the coarser fused map passes its lateral block, is upsampled 2x (nearest) and concatenated
// before the finer level for fpn_block; bottom-up: each output is downsampled and concatenated
// before the next level's lateral output for pan_block. Returns one map per level, finest first.
LIBREYOLO_SDK_API std::vector<torch::Tensor> fuse_cross_scale(const std::vector<torch::Tensor>& projected,
                                                              const CrossScaleBlocks& blocks);

// The blocks as lists of modules, one per index (LibreYOLO's ModuleLists); the lists must outlive
// the returned functions.
template <class Lateral, class FpnBlock, class Downsample, class PanBlock>
CrossScaleBlocks cross_scale_blocks(const std::vector<Lateral>& lateral, const std::vector<FpnBlock>& fpn_block,
                                    const std::vector<Downsample>& downsample, const std::vector<PanBlock>& pan_block) {
  CrossScaleBlocks blocks;
  blocks.lateral = [&lateral](size_t i, const torch::Tensor& x) { return lateral[i]->forward(x); };
  blocks.fpn_block = [&fpn_block](size_t i, const torch::Tensor& x) { return fpn_block[i]->forward(x); };
  blocks.downsample = [&downsample](size_t i, const torch::Tensor& x) { return downsample[i]->forward(x); };
  blocks.pan_block = [&pan_block](size_t i, const torch::Tensor& x) { return pan_block[i]->forward(x); };
  return blocks;
}

}  // namespace libreyolo::sdk::detr
