#include "rtdetr_decoder.hpp"

#include <torch/torch.h>

#include <cmath>

#include "decoder_outputs.hpp"
#include "libreyolo/sdk/detr/query_anchors.hpp"
#include "libreyolo/sdk/detr/transformer_encoder.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/detr/box_ops.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::rtdetr {
namespace {

torch::nn::Sequential projection(int64_t in_channels, int64_t hidden) {
  torch::nn::Sequential seq;
  seq->push_back("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, hidden, 1).bias(false)));
  seq->push_back("norm", sdk::BatchNorm2d(hidden));
  return seq;
}

// log((1 - p) / p) with p = 0.01: a classifier that starts out predicting "no object".
double prior_bias(double p = 0.01) { return -std::log((1.0 - p) / p); }

torch::Tensor gather_rows(const torch::Tensor& x, const torch::Tensor& index) {
  return x.gather(1, index.unsqueeze(-1).expand({index.size(0), index.size(1), x.size(2)}));
}

}  // namespace

LayerStackImpl::LayerStackImpl(const RtdetrConfig& c) {
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.num_decoder_layers; ++i) {
    DecoderLayer layer(c.decoder_hidden_dim, c.nhead, c.decoder_dim_feedforward, c.num_levels, c.num_points);
    // LibreYOLO deep-copies one layer num_layers times: every layer starts with its weights.
    if (i > 0) sdk::detr::copy_parameters(*layers->ptr(0), *layer);
    layers->push_back(layer);
  }
}

RtdetrDecoderImpl::RtdetrDecoderImpl(const RtdetrConfig& config, int64_t num_classes)
    : config_(config), num_classes_(num_classes) {
  const int64_t d = config.decoder_hidden_dim;
  input_proj = register_module("input_proj", torch::nn::ModuleList());
  for (int64_t level = 0; level < config.num_levels; ++level) input_proj->push_back(projection(config.encoder_hidden_dim, d));
  decoder = register_module("decoder", LayerStack(config));
  denoising_class_embed = register_module(
      "denoising_class_embed", torch::nn::Embedding(torch::nn::EmbeddingOptions(num_classes + 1, d).padding_idx(num_classes)));
  query_pos_head = register_module("query_pos_head", sdk::detr::Mlp(4, 2 * d, d, 2));
  enc_output = register_module("enc_output", torch::nn::Sequential(sdk::Linear(d, d),
                                                                    torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}))));
  enc_score_head = register_module("enc_score_head", sdk::Linear(d, num_classes));
  enc_bbox_head = register_module("enc_bbox_head", sdk::detr::Mlp(d, d, 4, 3));
  dec_score_head = register_module("dec_score_head", torch::nn::ModuleList());
  dec_bbox_head = register_module("dec_bbox_head", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.num_decoder_layers; ++i) {
    dec_score_head->push_back(sdk::Linear(d, num_classes));
    dec_bbox_head->push_back(sdk::detr::Mlp(d, d, 4, 3));
  }
  reset_parameters();
}

// LibreYOLO's _reset_parameters: class heads start at the 1% prior, box heads at zero (the
// first prediction is the anchor / reference itself), Xavier for the encoder output and the
// query position head.
void RtdetrDecoderImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double bias = prior_bias();
  enc_score_head->bias.fill_(bias);
  enc_bbox_head->zero_last();
  for (size_t i = 0; i < dec_score_head->size(); ++i) {
    dec_score_head[i]->as<sdk::Linear>()->bias.fill_(bias);
    dec_bbox_head->ptr<sdk::detr::MlpImpl>(i)->zero_last();
  }
  torch::nn::init::xavier_uniform_(enc_output[0]->as<sdk::Linear>()->weight);
  torch::nn::init::xavier_uniform_(query_pos_head->layers[0]->as<sdk::Linear>()->weight);
  torch::nn::init::xavier_uniform_(query_pos_head->layers[1]->as<sdk::Linear>()->weight);
}

std::vector<torch::Tensor> RtdetrDecoderImpl::project(const std::vector<torch::Tensor>& levels) {
  TORCH_CHECK(static_cast<int64_t>(levels.size()) == config_.num_levels, "RT-DETR decoder: expected ",
              config_.num_levels, " encoder levels, got ", levels.size());
  std::vector<torch::Tensor> out;
  for (size_t i = 0; i < levels.size(); ++i) out.push_back(input_proj[i]->as<torch::nn::Sequential>()->forward(levels[i]));
  return out;
}

const sdk::detr::EncoderAnchors& RtdetrDecoderImpl::anchors_for(const sdk::detr::SpatialShapes& shapes,
                                                     const torch::TensorOptions& options) {
  std::vector<int64_t> key_shapes;
  for (const auto& s : shapes) key_shapes.insert(key_shapes.end(), s.begin(), s.end());
  const auto key = std::make_tuple(key_shapes, options.device().str(), static_cast<int>(options.dtype().toScalarType()));
  auto found = anchor_cache_.find(key);
  if (found == anchor_cache_.end()) found = anchor_cache_.emplace(key, sdk::detr::make_encoder_anchors(shapes, options)).first;
  return found->second;
}

RtdetrDecoderImpl::Queries RtdetrDecoderImpl::select_queries(const DecoderMemory& m) {
  sdk::detr::require_query_positions(m.shapes, config_.num_queries);
  const auto& anchors = anchors_for(m.shapes, m.memory.options());
  const auto memory = anchors.valid.to(m.memory.dtype()) * m.memory;
  const auto output_memory = enc_output->forward(memory);
  const auto enc_class = enc_score_head(output_memory);
  const auto enc_coord_unact = enc_bbox_head(output_memory) + anchors.logits;
  const auto top = std::get<1>(enc_class.amax(-1).topk(config_.num_queries, 1));
  Queries q;
  q.reference_unact = gather_rows(enc_coord_unact, top);
  q.enc_boxes = torch::sigmoid(q.reference_unact);
  q.enc_logits = gather_rows(enc_class, top);
  q.target = gather_rows(output_memory, top).detach();
  q.reference_unact = q.reference_unact.detach();
  return q;
}

std::optional<sdk::detr::DenoisingQueries> RtdetrDecoderImpl::denoising_queries(const sdk::Targets& targets,
                                                                                int64_t height, int64_t width) {
  sdk::detr::DenoisingConfig dn;
  dn.num_denoising = config_.num_denoising;
  dn.label_noise_ratio = config_.label_noise_ratio;
  dn.box_noise_scale = config_.box_noise_scale;
  const auto layout = sdk::detr::denoising_layout(sdk::counts_on_host(targets), dn);
  if (!layout.active()) return std::nullopt;
  const auto scale = sdk::detr::xywh_scale(height, width, targets.boxes.options());
  const auto labels = targets.boxes.select(2, 0).to(torch::kInt64);
  const auto boxes = targets.boxes.narrow(2, 1, 4) / scale;
  const auto noise = noise_source_ ? noise_source_(layout, targets.batch_size())
                                   : sdk::detr::draw_denoising_noise(layout, targets.batch_size(), num_classes_,
                                                                     targets.boxes.options());
  return sdk::detr::make_denoising_queries(labels, boxes, sdk::valid_mask(targets), layout, noise, num_classes_,
                                           config_.num_queries, denoising_class_embed, dn);
}

RtdetrDecoderImpl::LayerOutputs RtdetrDecoderImpl::run_layers(torch::Tensor output, const torch::Tensor& reference_unact,
                                                              const DecoderMemory& memory,
                                                              const torch::Tensor& attn_mask) {
  const bool training = is_training();
  const int64_t eval_layer = config_.eval_layer();
  std::vector<torch::Tensor> boxes, logits;
  auto reference = torch::sigmoid(reference_unact).to(output.dtype());
  auto reference_detached = reference;
  for (int64_t i = 0; i < config_.num_decoder_layers; ++i) {
    auto layer = decoder->layers->ptr<DecoderLayerImpl>(static_cast<size_t>(i));
    auto bbox_head = dec_bbox_head->ptr<sdk::detr::MlpImpl>(static_cast<size_t>(i));
    auto score_head = dec_score_head[static_cast<size_t>(i)]->as<sdk::Linear>();
    const auto query_pos = query_pos_head(reference_detached);
    output = layer->forward(output, reference_detached.unsqueeze(2), memory, attn_mask, query_pos);
    const auto delta = bbox_head->forward(output);
    const auto refined = torch::sigmoid(delta + sdk::detr::inverse_sigmoid(reference_detached));
    if (training) {
      logits.push_back(score_head->forward(output));
      // Layers after the first are also supervised through the previous layer's (attached) box.
      boxes.push_back(i == 0 ? refined : torch::sigmoid(delta + sdk::detr::inverse_sigmoid(reference)));
    } else if (i == eval_layer) {
      logits.push_back(score_head->forward(output));
      boxes.push_back(refined);
      break;
    }
    reference = refined;
    reference_detached = training ? refined.detach() : refined;
  }
  return {torch::stack(boxes), torch::stack(logits)};
}

DecoderMemory RtdetrDecoderImpl::flatten_levels(const std::vector<torch::Tensor>& projected) const {
  DecoderMemory memory;
  std::vector<torch::Tensor> flat;
  for (const auto& level : projected) {
    memory.shapes.push_back({level.size(2), level.size(3)});
    flat.push_back(level.flatten(2).transpose(1, 2));
  }
  memory.memory = torch::cat(flat, 1);
  return memory;
}

std::vector<torch::Tensor> RtdetrDecoderImpl::forward(const std::vector<torch::Tensor>& projected,
                                                      const sdk::Targets* targets) {
  const auto memory = flatten_levels(projected);
  const int64_t height = projected[0].size(2) * 8, width = projected[0].size(3) * 8;  // stride 8

  std::optional<sdk::detr::DenoisingQueries> dn;
  if (is_training() && targets != nullptr && config_.num_denoising > 0) dn = denoising_queries(*targets, height, width);
  auto q = select_queries(memory);
  auto target = q.target, reference_unact = q.reference_unact;
  torch::Tensor attn_mask;
  if (dn) {
    target = torch::cat({dn->class_embed.to(target.dtype()), target}, 1);
    reference_unact = torch::cat({dn->bbox_unact.to(reference_unact.dtype()), reference_unact}, 1);
    attn_mask = dn->attn_mask;
  }
  auto layers = run_layers(target, reference_unact, memory, attn_mask);

  std::vector<torch::Tensor> out(outputs::count);
  out[outputs::input_size] = torch::tensor({height, width}, torch::kInt64);
  if (dn) {
    const int64_t n = dn->layout.num_queries_dn;
    std::tie(out[outputs::dn_boxes], layers.boxes) = sdk::detr::split_denoising(layers.boxes, 2, n);
    std::tie(out[outputs::dn_logits], layers.logits) = sdk::detr::split_denoising(layers.logits, 2, n);
    out[outputs::dn_matched_gt] = dn->matched_gt;
  }
  out[outputs::dec_boxes] = layers.boxes;
  out[outputs::dec_logits] = layers.logits;
  if (is_training()) {
    out[outputs::enc_boxes] = q.enc_boxes;
    out[outputs::enc_logits] = q.enc_logits;
  }
  return out;
}

std::vector<int64_t> RtdetrDecoderImpl::prepare_denoising(const sdk::Targets& targets, int64_t height, int64_t width,
                                                          bool static_shapes) {
  prepared_height_ = height;
  prepared_width_ = width;
  const sdk::detr::DenoisingInputs::Settings settings{config_.num_denoising, config_.num_queries, num_classes_};
  return prepared_.prepare_batch(targets, settings, static_shapes,
                                 [&] { return denoising_queries(targets, height, width); });
}

std::vector<torch::Tensor> RtdetrDecoderImpl::forward_prepared(const std::vector<torch::Tensor>& projected) {
  TORCH_CHECK(prepared_.prepared(), "RT-DETR decoder: forward_prepared without prepare_denoising");
  const auto memory = flatten_levels(projected);
  auto q = select_queries(memory);
  const auto in = prepared_.join(q.target, q.reference_unact, denoising_class_embed);
  const auto layers = run_layers(in.target, in.reference_unact, memory, in.attn_mask);
  return {layers.boxes, layers.logits, q.enc_boxes, q.enc_logits};
}

std::vector<torch::Tensor> RtdetrDecoderImpl::finish_prepared(const std::vector<torch::Tensor>& region_outputs) {
  TORCH_CHECK(prepared_.prepared() && region_outputs.size() == 4, "RT-DETR decoder: finish_prepared needs the ",
              "prepared region's 4 outputs, got ", region_outputs.size(), prepared_.prepared() ? "" : " and no preparation");
  std::vector<torch::Tensor> out(outputs::count);
  out[outputs::input_size] = torch::tensor({prepared_height_, prepared_width_}, torch::kInt64);
  std::tie(out[outputs::dn_boxes], out[outputs::dec_boxes]) = prepared_.split(region_outputs[0], 2);
  std::tie(out[outputs::dn_logits], out[outputs::dec_logits]) = prepared_.split(region_outputs[1], 2);
  if (out[outputs::dn_logits].defined()) out[outputs::dn_matched_gt] = prepared_.real()->matched_gt;
  out[outputs::enc_boxes] = region_outputs[2];
  out[outputs::enc_logits] = region_outputs[3];
  prepared_.forget();
  return out;
}

}  // namespace libreyolo::rtdetr
