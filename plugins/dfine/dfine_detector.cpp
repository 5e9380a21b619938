#include "dfine_detector.hpp"

#include <torch/torch.h>

#include "decoder_outputs.hpp"
#include "libreyolo/sdk/detr/query_anchors.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"

namespace libreyolo::dfine {
namespace {

std::shared_ptr<sdk::backbones::HGNetv2Impl> make_backbone(const DfineConfig& c) {
  sdk::backbones::HGNetv2Options o;
  o.arch = c.backbone_arch;
  o.use_lab = c.use_lab;
  o.freeze_norm = c.freeze_norm;
  o.freeze_at = c.freeze_at;
  o.return_idx = c.return_idx;
  return sdk::backbones::make_hgnetv2(o);
}

HybridEncoderOptions encoder_options(const DfineConfig& c, std::vector<int64_t> in_channels) {
  HybridEncoderOptions o;
  o.in_channels = std::move(in_channels);
  o.hidden_dim = c.encoder_hidden_dim;
  o.nhead = c.nhead;
  o.dim_feedforward = c.encoder_dim_feedforward;
  o.expansion = c.encoder_expansion;
  o.depth_mult = c.encoder_depth_mult;
  o.use_encoder_idx = c.use_encoder_idx;
  return o;
}

}  // namespace

DfineDetector::DfineDetector(const std::string& size, int64_t num_classes, std::array<int64_t, 2> eval_size)
    : config_(dfine_config(size)), num_classes_(num_classes) {
  backbone_ = register_module("backbone", make_backbone(config_));
  encoder_ = register_module("encoder", HybridEncoder(encoder_options(config_, backbone_->out_channels())));
  decoder_ = register_module("decoder", DfineDecoder(config_, num_classes, eval_size));
}

std::vector<int64_t> DfineDetector::prepare_training_forward(const torch::Tensor& images, const sdk::Targets& targets,
                                                             bool static_shapes) {
  if (!is_training()) return {};
  return decoder_->prepare_denoising(targets, images.size(2), images.size(3), static_shapes);
}

// Prepared (a training step): the whole network, decoder included. Otherwise (inference, or a
// training forward the host did not prepare): backbone, encoder and projection; the decoder
// then runs in forward_remainder.
std::vector<torch::Tensor> DfineDetector::forward_capturable(const torch::Tensor& images) {
  auto projected = decoder_->project(encoder_->forward(backbone_->forward(images)));
  if (!(is_training() && decoder_->prepared())) return projected;
  return decoder_->forward_prepared(projected);
}

std::vector<torch::Tensor> DfineDetector::forward_remainder(std::vector<torch::Tensor> features,
                                                            const sdk::Targets* targets) {
  if (is_training() && decoder_->prepared()) return decoder_->finish_prepared(features);
  return decoder_->forward(features, targets);
}

// LibreYOLO's DETR post-processing up to its top-k: sigmoid scores of every (query, class) of the
// last computed layer and the boxes in input pixels; the host keeps the best max_det pairs
// (Suppression::none), without NMS.
sdk::Candidates DfineDetector::decode(const std::vector<torch::Tensor>& outputs) {
  const auto logits = outputs.at(outputs::dec_logits);
  const auto boxes = outputs.at(outputs::dec_boxes);
  const auto size = outputs.at(outputs::input_size);
  const auto height = size[0].item<int64_t>(), width = size[1].item<int64_t>();
  const auto scale = sdk::detr::xywh_scale(height, width, boxes.options().dtype(torch::kFloat32));
  sdk::Candidates c;
  c.scores = torch::sigmoid(logits[logits.size(0) - 1].to(torch::kFloat32));
  c.boxes = sdk::losses::xywh_to_xyxy(boxes[boxes.size(0) - 1].to(torch::kFloat32)) * scale;
  return c;
}

}  // namespace libreyolo::dfine
