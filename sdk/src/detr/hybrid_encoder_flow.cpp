#include "libreyolo/sdk/detr/hybrid_encoder_flow.hpp"

#include <torch/torch.h>

namespace libreyolo::sdk::detr {

torch::Tensor PositionEmbeddingCache::get(int64_t h, int64_t w, const torch::Tensor& like) {
  for (const auto& entry : entries_)
    if (entry.h == h && entry.w == w && entry.device == like.device() && entry.dtype == like.scalar_type())
      return entry.value;
  auto value = sincos_position_embedding_2d(w, h, dim_, temperature_, like.device()).to(like.scalar_type());
  entries_.push_back({h, w, like.device(), like.scalar_type(), value});
  return value;
}

torch::Tensor encode_map(TransformerEncoder& encoder, const torch::Tensor& projected,
                         PositionEmbeddingCache& embeddings) {
  const auto n = projected.size(0), c = projected.size(1), h = projected.size(2), w = projected.size(3);
  const auto tokens = projected.flatten(2).permute({0, 2, 1});  // [N, H * W, C]
  const auto memory = encoder.forward(tokens, embeddings.get(h, w, tokens));
  return memory.permute({0, 2, 1}).reshape({n, c, h, w}).contiguous();
}

void encode_levels(const std::vector<std::shared_ptr<TransformerEncoder>>& encoders, const std::vector<int64_t>& levels,
                   std::vector<torch::Tensor>& projected, PositionEmbeddingCache& embeddings) {
  for (size_t i = 0; i < encoders.size() && i < levels.size(); ++i) {
    if (encoders[i]->num_layers() == 0) continue;
    auto& map = projected.at(static_cast<size_t>(levels[i]));
    map = encode_map(*encoders[i], map, embeddings);
  }
}

std::vector<torch::Tensor> fuse_cross_scale(const std::vector<torch::Tensor>& projected,
                                            const CrossScaleBlocks& blocks) {
  const size_t levels = projected.size();
  if (levels == 0) return {};
  // inner[i]: level i's top-down map; the coarser one is replaced by its lateral output, which
  // the bottom-up pass reads too.
  std::vector<torch::Tensor> inner(projected);
  for (size_t level = levels - 1; level > 0; --level) {
    const size_t k = levels - 1 - level;
    inner[level] = blocks.lateral(k, inner[level]);
    const auto upsampled = torch::nn::functional::interpolate(
        inner[level],
        torch::nn::functional::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0}).mode(torch::kNearest));
    inner[level - 1] = blocks.fpn_block(k, torch::cat({upsampled, projected[level - 1]}, 1));
  }
  std::vector<torch::Tensor> outs{inner[0]};
  for (size_t level = 0; level + 1 < levels; ++level) {
    const auto downsampled = blocks.downsample(level, outs.back());
    outs.push_back(blocks.pan_block(level, torch::cat({downsampled, inner[level + 1]}, 1)));
  }
  return outs;
}

}  // namespace libreyolo::sdk::detr
