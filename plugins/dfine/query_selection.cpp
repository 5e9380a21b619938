// D-FINE's decoder inputs: the encoder's top-Q query selection and the denoising queries
// (LibreYOLO's DFINETransformer._get_decoder_input, _select_topk and the denoising group).

#include <torch/torch.h>

#include "dfine_decoder.hpp"
#include "libreyolo/sdk/detr/query_anchors.hpp"

namespace libreyolo::dfine {
namespace {

torch::Tensor gather_rows(const torch::Tensor& x, const torch::Tensor& index) {
  return x.gather(1, index.unsqueeze(-1).expand({index.size(0), index.size(1), x.size(2)}));
}

std::vector<int64_t> flat_shapes(const sdk::detr::SpatialShapes& shapes) {
  std::vector<int64_t> out;
  for (const auto& s : shapes) out.insert(out.end(), s.begin(), s.end());
  return out;
}

}  // namespace

// Evaluation at eval_size reads the buffers, as LibreYOLO does (a loaded checkpoint's anchors
// are what it evaluates with); training and other sizes use generated anchors, cached per
// (shapes, device, dtype) because they are constants of the shapes.
sdk::detr::EncoderAnchors DfineDecoderImpl::anchors_for(const sdk::detr::SpatialShapes& shapes,
                                             const torch::TensorOptions& options) {
  if (!is_training() && flat_shapes(shapes) == flat_shapes(eval_shapes()))
    return {anchors.to(options.dtype()), valid_mask};
  const auto key = std::make_tuple(flat_shapes(shapes), options.device().str(),
                                   static_cast<int>(options.dtype().toScalarType()));
  auto found = anchor_cache_.find(key);
  if (found == anchor_cache_.end()) found = anchor_cache_.emplace(key, sdk::detr::make_encoder_anchors(shapes, options)).first;
  return found->second;
}

DfineDecoderImpl::Queries DfineDecoderImpl::select_queries(const DecoderMemory& m) {
  const auto anchor = anchors_for(m.shapes, m.memory.options());
  TORCH_CHECK(anchor.logits.size(1) == m.memory.size(1), "D-FINE decoder: ", anchor.logits.size(1),
              " anchors for ", m.memory.size(1), " memory positions");
  sdk::detr::require_query_positions(m.shapes, config_.num_queries);
  const auto output_memory = enc_output->forward(anchor.valid.to(m.memory.dtype()) * m.memory);
  const auto enc_class = enc_score_head(output_memory);
  const auto top = std::get<1>(enc_class.amax(-1).topk(config_.num_queries, 1));
  const auto top_memory = gather_rows(output_memory, top);
  const auto top_anchors = gather_rows(anchor.logits.expand({m.memory.size(0), -1, -1}), top);
  // Unlike RT-DETR's, the box head runs on the selected queries only.
  const auto reference_unact = enc_bbox_head(top_memory) + top_anchors;
  Queries q;
  if (is_training()) {
    q.enc_boxes = torch::sigmoid(reference_unact);
    q.enc_logits = gather_rows(enc_class, top);
  }
  q.target = top_memory.detach();
  q.reference_unact = reference_unact.detach();
  return q;
}

std::optional<sdk::detr::DenoisingQueries> DfineDecoderImpl::denoising_queries(const sdk::Targets& targets,
                                                                               int64_t height, int64_t width) {
  sdk::detr::DenoisingConfig dn;
  dn.num_denoising = config_.num_denoising;
  dn.label_noise_ratio = config_.label_noise_ratio;
  dn.box_noise_scale = config_.box_noise_scale;
  dn.flip_negative_sizes = true;  // LibreYOLO's D-FINE denoising (unlike its RT-DETR's)
  const auto layout = sdk::detr::denoising_layout(sdk::counts_on_host(targets), dn);
  if (!layout.active()) return std::nullopt;
  const auto scale = sdk::detr::xywh_scale(height, width, targets.boxes.options());
  const auto labels = targets.boxes.select(2, 0).to(torch::kInt64);
  // LibreYOLO's D-FINE trainer clamps the normalised boxes to [0, 1] before the model sees them.
  const auto boxes = (targets.boxes.narrow(2, 1, 4) / scale).clamp(0.0, 1.0);
  const auto noise = noise_source_ ? noise_source_(layout, targets.batch_size())
                                   : sdk::detr::draw_denoising_noise(layout, targets.batch_size(), num_classes_,
                                                                     targets.boxes.options());
  return sdk::detr::make_denoising_queries(labels, boxes, sdk::valid_mask(targets), layout, noise, num_classes_,
                                           config_.num_queries, denoising_class_embed, dn);
}

}  // namespace libreyolo::dfine
