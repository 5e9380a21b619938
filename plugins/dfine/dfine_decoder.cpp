#include "dfine_decoder.hpp"

#include <torch/torch.h>

#include <array>
#include <cmath>
#include <tuple>

#include "libreyolo/sdk/detr/transformer_encoder.hpp"
#include "decoder_outputs.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {
namespace {

torch::nn::Sequential projection(int64_t in_channels, int64_t hidden) {
  torch::nn::Sequential seq;
  seq->push_back("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in_channels, hidden, 1).bias(false)));
  seq->push_back("norm", sdk::BatchNorm2d(hidden));
  return seq;
}

// log(p / (1 - p)) with p = 0.01: a classifier that starts out predicting "no object".
double prior_bias(double p = 0.01) { return -std::log((1.0 - p) / p); }

// The LQE of LibreYOLO's decoder: top-4 probabilities per edge, a 64-wide two-layer MLP.
constexpr int64_t kLqeTopK = 4, kLqeHidden = 64, kLqeLayers = 2;

}  // namespace

LayerStackImpl::LayerStackImpl(const DfineConfig& c, const torch::Tensor& up, const torch::Tensor& reg_scale) {
  register_parameter("up", up, /*requires_grad=*/false);
  register_parameter("reg_scale", reg_scale, /*requires_grad=*/false);
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.num_decoder_layers; ++i) {
    DecoderLayer layer(c.decoder_hidden_dim, c.nhead, c.decoder_dim_feedforward, c.num_points);
    // LibreYOLO deep-copies one layer num_layers times: every layer starts with its weights.
    if (i > 0) sdk::detr::copy_parameters(*layers->ptr(0), *layer);
    layers->push_back(layer);
  }
  lqe_layers = register_module("lqe_layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.num_decoder_layers; ++i) {
    Lqe lqe(kLqeTopK, kLqeHidden, kLqeLayers, c.reg_max);
    if (i > 0) sdk::detr::copy_parameters(*lqe_layers->ptr(0), *lqe);
    lqe_layers->push_back(lqe);
  }
}

DfineDecoderImpl::DfineDecoderImpl(const DfineConfig& config, int64_t num_classes, std::array<int64_t, 2> eval_size)
    : config_(config), num_classes_(num_classes), eval_size_(eval_size) {
  TORCH_CHECK(num_classes > 0, "D-FINE decoder: num_classes must be positive, got ", num_classes);
  TORCH_CHECK(static_cast<int64_t>(config.feat_strides.size()) == config.num_levels(), "D-FINE decoder: ",
              config.feat_strides.size(), " strides for ", config.num_levels(), " levels of sampling points");
  const int64_t d = config.decoder_hidden_dim;
  // Own parameters and buffers first: PyTorch's state_dict lists them before the children.
  up = register_parameter("up", torch::full({1}, 0.5), /*requires_grad=*/false);
  reg_scale = register_parameter("reg_scale", torch::full({1}, config.reg_scale), /*requires_grad=*/false);
  const auto initial = sdk::detr::make_encoder_anchors(eval_shapes(), torch::TensorOptions().dtype(torch::kFloat32));
  anchors = register_buffer("anchors", initial.logits);
  valid_mask = register_buffer("valid_mask", initial.valid);
  input_proj = register_module("input_proj", torch::nn::ModuleList());
  for (int64_t level = 0; level < config.num_levels(); ++level) {
    if (config.encoder_hidden_dim == d) {
      input_proj->push_back(torch::nn::Identity());
    } else {
      input_proj->push_back(projection(config.encoder_hidden_dim, d));
    }
  }
  decoder = register_module("decoder", LayerStack(config, up, reg_scale));
  denoising_class_embed = register_module(
      "denoising_class_embed", torch::nn::Embedding(torch::nn::EmbeddingOptions(num_classes + 1, d).padding_idx(num_classes)));
  query_pos_head = register_module("query_pos_head", sdk::detr::Mlp(4, 2 * d, d, 2));
  torch::nn::Sequential enc;
  enc->push_back("proj", sdk::Linear(d, d));
  enc->push_back("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  enc_output = register_module("enc_output", enc);
  enc_score_head = register_module("enc_score_head", sdk::Linear(d, num_classes));
  enc_bbox_head = register_module("enc_bbox_head", sdk::detr::Mlp(d, d, 4, 3));
  dec_score_head = register_module("dec_score_head", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.num_decoder_layers; ++i) dec_score_head->push_back(sdk::Linear(d, num_classes));
  pre_bbox_head = register_module("pre_bbox_head", sdk::detr::Mlp(d, d, 4, 3));
  dec_bbox_head = register_module("dec_bbox_head", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.num_decoder_layers; ++i) dec_bbox_head->push_back(sdk::detr::Mlp(d, d, 4 * (config.reg_max + 1), 3));
  reset_parameters();
}

sdk::detr::SpatialShapes DfineDecoderImpl::eval_shapes() const {
  sdk::detr::SpatialShapes shapes;
  for (const auto stride : config_.feat_strides) shapes.push_back({eval_size_[0] / stride, eval_size_[1] / stride});
  return shapes;
}

void DfineDecoderImpl::reset_anchor_buffers() {
  torch::NoGradGuard no_grad;
  const auto fresh = sdk::detr::make_encoder_anchors(eval_shapes(), anchors.options());
  anchors.copy_(fresh.logits);
  valid_mask.copy_(fresh.valid);
}

// LibreYOLO's _reset_parameters: class heads start at the 1% prior, box heads at zero (the first
// prediction is the anchor / reference itself, the first FDR distributions uniform), Xavier for
// the encoder output, the query position head and the input projections.
void DfineDecoderImpl::reset_parameters() {
  torch::NoGradGuard no_grad;
  const double bias = prior_bias();
  enc_score_head->bias.fill_(bias);
  enc_bbox_head->zero_last();
  pre_bbox_head->zero_last();
  for (size_t i = 0; i < dec_score_head->size(); ++i) {
    dec_score_head[i]->as<sdk::Linear>()->bias.fill_(bias);
    dec_bbox_head->ptr<sdk::detr::MlpImpl>(i)->zero_last();
  }
  torch::nn::init::xavier_uniform_(enc_output[0]->as<sdk::Linear>()->weight);
  torch::nn::init::xavier_uniform_(query_pos_head->layer(0)->weight);
  torch::nn::init::xavier_uniform_(query_pos_head->layer(1)->weight);
  for (size_t i = 0; i < input_proj->size(); ++i)
    if (auto* seq = input_proj[i]->as<torch::nn::Sequential>())
      torch::nn::init::xavier_uniform_((*seq)[0]->as<torch::nn::Conv2d>()->weight);
}

std::vector<torch::Tensor> DfineDecoderImpl::project(const std::vector<torch::Tensor>& levels) {
  TORCH_CHECK(static_cast<int64_t>(levels.size()) == config_.num_levels(), "D-FINE decoder: expected ",
              config_.num_levels(), " encoder levels, got ", levels.size());
  std::vector<torch::Tensor> out;
  for (size_t i = 0; i < levels.size(); ++i) {
    auto* seq = input_proj[i]->as<torch::nn::Sequential>();
    out.push_back(seq ? seq->forward(levels[i]) : levels[i]);
  }
  return out;
}

DecoderMemory DfineDecoderImpl::flatten_levels(const std::vector<torch::Tensor>& projected) const {
  DecoderMemory memory;
  std::vector<torch::Tensor> flat;
  for (const auto& level : projected) {
    memory.shapes.push_back({level.size(2), level.size(3)});
    flat.push_back(level.flatten(2).transpose(1, 2));
  }
  memory.memory = torch::cat(flat, 1);
  return memory;
}

std::vector<torch::Tensor> DfineDecoderImpl::forward(const std::vector<torch::Tensor>& projected,
                                                     const sdk::Targets* targets) {
  const auto memory = flatten_levels(projected);
  const int64_t stride = config_.feat_strides.front();
  const int64_t height = projected[0].size(2) * stride, width = projected[0].size(3) * stride;

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
  out[outputs::up] = up;
  out[outputs::reg_scale] = reg_scale;
  if (dn) {
    const int64_t n = dn->layout.num_queries_dn;
    using sdk::detr::split_denoising;
    std::tie(out[outputs::dn_logits], layers.logits) = split_denoising(layers.logits, 2, n);
    std::tie(out[outputs::dn_boxes], layers.boxes) = split_denoising(layers.boxes, 2, n);
    std::tie(out[outputs::dn_corners], layers.corners) = split_denoising(layers.corners, 2, n);
    std::tie(out[outputs::dn_refs], layers.refs) = split_denoising(layers.refs, 2, n);
    std::tie(out[outputs::dn_pre_logits], layers.pre_logits) = split_denoising(layers.pre_logits, 1, n);
    std::tie(out[outputs::dn_pre_boxes], layers.pre_boxes) = split_denoising(layers.pre_boxes, 1, n);
    out[outputs::dn_matched_gt] = dn->matched_gt;
  }
  out[outputs::dec_logits] = layers.logits;
  out[outputs::dec_boxes] = layers.boxes;
  if (is_training()) {
    out[outputs::dec_corners] = layers.corners;
    out[outputs::dec_refs] = layers.refs;
    out[outputs::pre_logits] = layers.pre_logits;
    out[outputs::pre_boxes] = layers.pre_boxes;
    out[outputs::enc_logits] = q.enc_logits;
    out[outputs::enc_boxes] = q.enc_boxes;
  }
  return out;
}

std::vector<int64_t> DfineDecoderImpl::prepare_denoising(const sdk::Targets& targets, int64_t height, int64_t width,
                                                         bool static_shapes) {
  prepared_height_ = height;
  prepared_width_ = width;
  const sdk::detr::DenoisingInputs::Settings settings{config_.num_denoising, config_.num_queries, num_classes_};
  return prepared_.prepare_batch(targets, settings, static_shapes,
                                 [&] { return denoising_queries(targets, height, width); });
}

// Region outputs, in order: logits, boxes, corners, refs, pre_logits, pre_boxes (all queries),
// enc_logits, enc_boxes.
std::vector<torch::Tensor> DfineDecoderImpl::forward_prepared(const std::vector<torch::Tensor>& projected) {
  TORCH_CHECK(prepared_.prepared(), "D-FINE decoder: forward_prepared without prepare_denoising");
  const auto memory = flatten_levels(projected);
  auto q = select_queries(memory);
  const auto in = prepared_.join(q.target, q.reference_unact, denoising_class_embed);
  const auto l = run_layers(in.target, in.reference_unact, memory, in.attn_mask);
  return {l.logits, l.boxes, l.corners, l.refs, l.pre_logits, l.pre_boxes, q.enc_logits, q.enc_boxes};
}

std::vector<torch::Tensor> DfineDecoderImpl::finish_prepared(const std::vector<torch::Tensor>& region_outputs) {
  TORCH_CHECK(prepared_.prepared() && region_outputs.size() == 8, "D-FINE decoder: finish_prepared needs the ",
              "prepared region's 8 outputs, got ", region_outputs.size(), prepared_.prepared() ? "" : " and no preparation");
  namespace o = outputs;
  std::vector<torch::Tensor> out(o::count);
  out[o::input_size] = torch::tensor({prepared_height_, prepared_width_}, torch::kInt64);
  out[o::up] = up;
  out[o::reg_scale] = reg_scale;
  // {denoising entry, matching entry, query axis} of each split region output.
  const std::array<std::tuple<std::size_t, std::size_t, int64_t>, 6> splits{
      {{o::dn_logits, o::dec_logits, 2}, {o::dn_boxes, o::dec_boxes, 2}, {o::dn_corners, o::dec_corners, 2},
       {o::dn_refs, o::dec_refs, 2}, {o::dn_pre_logits, o::pre_logits, 1}, {o::dn_pre_boxes, o::pre_boxes, 1}}};
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto [dn, matching, dim] = splits[i];
    std::tie(out[dn], out[matching]) = prepared_.split(region_outputs[i], dim);
  }
  if (out[o::dn_logits].defined()) out[o::dn_matched_gt] = prepared_.real()->matched_gt;
  out[o::enc_logits] = region_outputs[6];
  out[o::enc_boxes] = region_outputs[7];
  prepared_.forget();
  return out;
}

}  // namespace libreyolo::dfine
