// D-FINE's decoder loop (LibreYOLO's TransformerDecoder.forward): the layers with Fine-grained
// Distribution Refinement. Per layer i:
//   output_i  = layer_i(output_{i-1}, boxes_{i-1} detached, memory)
//   corners_i = dec_bbox_head_i(output_i + output_{i-1} detached) + corners_{i-1}   (not detached)
//   boxes_i   = decode(reference, integral(corners_i, W(up, reg_scale)))
// where the reference of every layer is the first layer's pre_bbox_head box (detached), and
// the logits get the LQE offset. Inference stops at the eval layer.

#include <torch/torch.h>

#include "dfine_decoder.hpp"
#include "libreyolo/sdk/detr/box_ops.hpp"
#include "libreyolo/sdk/detr/fdr.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

DfineDecoderImpl::LayerOutputs DfineDecoderImpl::run_layers(torch::Tensor output, const torch::Tensor& reference_unact,
                                                            const DecoderMemory& memory,
                                                            const torch::Tensor& attn_mask) {
  const bool training = is_training();
  const int64_t eval_layer = config_.eval_layer();
  const auto project = sdk::detr::weighting_function(config_.reg_max, up, reg_scale);
  std::vector<torch::Tensor> boxes, logits, corners_out, refs;
  LayerOutputs result;
  torch::Tensor previous_output, previous_corners, reference;
  auto input_boxes = torch::sigmoid(reference_unact).to(output.dtype());
  for (int64_t i = 0; i < config_.num_decoder_layers; ++i) {
    const auto index = static_cast<size_t>(i);
    auto layer = decoder->layers->ptr<DecoderLayerImpl>(index);
    const auto query_pos = query_pos_head(input_boxes).clamp(-10.0, 10.0);
    output = layer->forward(output, input_boxes.unsqueeze(2), memory, attn_mask, query_pos);
    if (i == 0) {
      result.pre_boxes = torch::sigmoid(pre_bbox_head(output) + sdk::detr::inverse_sigmoid(input_boxes));
      if (training) result.pre_logits = dec_score_head[0]->as<sdk::Linear>()->forward(output);
      reference = result.pre_boxes.detach();
    }
    const auto head_input = previous_output.defined() ? output + previous_output : output;
    auto corners = dec_bbox_head->ptr<sdk::detr::MlpImpl>(index)->forward(head_input);
    if (previous_corners.defined()) corners = corners + previous_corners;
    const auto refined =
        sdk::detr::distance_to_box(reference, sdk::detr::integrate_distribution(corners, project), reg_scale);
    if (training || i == eval_layer) {
      const auto scores = dec_score_head[index]->as<sdk::Linear>()->forward(output);
      logits.push_back(decoder->lqe_layers->ptr<LqeImpl>(index)->forward(scores, corners));
      boxes.push_back(refined);
      corners_out.push_back(corners);
      refs.push_back(reference);
      if (!training) break;
    }
    previous_corners = corners;
    input_boxes = refined.detach();
    previous_output = output.detach();
  }
  result.boxes = torch::stack(boxes);
  result.logits = torch::stack(logits);
  result.corners = torch::stack(corners_out);
  result.refs = torch::stack(refs);
  return result;
}

}  // namespace libreyolo::dfine
