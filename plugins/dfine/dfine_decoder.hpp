#pragma once
// D-FINE's decoder (LibreYOLO's DFINETransformer, registered as "decoder"): an optional input
// projection (x only: its encoder is wider than its decoder), query selection from the encoder
// memory (top-Q positions by class score, boxes from anchors), contrastive denoising queries
// built from the ground truth in training, and a stack of decoder layers whose boxes are
// refined by Fine-grained Distribution Refinement: every layer predicts, per box edge, a
// distribution over reg_max + 1 bins, added to the previous layer's logits, integrated against
// the weighting function W(up, reg_scale) and decoded around the first layer's box
// (pre_bbox_head). Class logits get the LQE quality offset.
//
// The projection is split from the rest: without a prepared step (inference) only it joins the
// capturable region and forward() runs the rest; in training the denoising queries are prepared
// before the region (prepare_denoising) and forward_prepared runs the rest inside it.
//
// State: up [1] (0.5) and reg_scale [1] are parameters without gradient, registered both here and
// in the layer stack (decoder.up and decoder.decoder.up are one tensor), as LibreYOLO's
// nn.Parameter shared by two modules; anchors / valid_mask are buffers for eval_size.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "libreyolo/sdk/detr/query_anchors.hpp"
#include "config.hpp"
#include "decoder_layer.hpp"
#include "libreyolo/sdk/detr/denoising.hpp"
#include "libreyolo/sdk/detr/denoising_inputs.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "lqe.hpp"
#include "libreyolo/sdk/detr/mlp.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::dfine {

// LibreYOLO's TransformerDecoder (keys decoder.decoder.{up, reg_scale, layers.k.*, lqe_layers.k.*}).
class LayerStackImpl : public torch::nn::Module {
 public:
  LayerStackImpl(const DfineConfig& config, const torch::Tensor& up, const torch::Tensor& reg_scale);
  torch::nn::ModuleList layers, lqe_layers;
};
TORCH_MODULE(LayerStack);

class DfineDecoderImpl : public torch::nn::Module {
 public:
  // eval_size: (height, width) of the input whose anchors the anchors / valid_mask buffers hold
  // (LibreYOLO's eval_spatial_size; its checkpoints carry 640 x 640). Other input sizes work:
  // their anchors are generated and cached.
  DfineDecoderImpl(const DfineConfig& config, int64_t num_classes, std::array<int64_t, 2> eval_size = {640, 640});

  // The encoder's levels [B, encoder_hidden, h, w] -> [B, D, h, w] (1x1 conv + BatchNorm where
  // the widths differ, else unchanged).
  std::vector<torch::Tensor> project(const std::vector<torch::Tensor>& levels);
  // Projected levels -> outputs laid out as decoder_outputs.hpp says. `targets` (pixels of the
  // network input) only in training, for the denoising queries.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& projected, const sdk::Targets* targets);

  // The whole decoder inside the capturable region (CaptureRegion::network_with_denoising), as
  // RT-DETR's: prepare_denoising (eager) builds the batch's denoising queries and hands them to
  // sdk::detr::DenoisingInputs (padded and kept in place with static_shapes), returning the
  // region's key; forward_prepared (in the region) runs query selection and the layers on them;
  // finish_prepared lays the outputs out as decoder_outputs.hpp says and forgets the step.
  std::vector<int64_t> prepare_denoising(const sdk::Targets& targets, int64_t height, int64_t width,
                                         bool static_shapes);
  bool prepared() const { return prepared_.prepared(); }
  std::vector<torch::Tensor> forward_prepared(const std::vector<torch::Tensor>& projected);
  std::vector<torch::Tensor> finish_prepared(const std::vector<torch::Tensor>& region_outputs);

  const DfineConfig& config() const { return config_; }
  int64_t num_classes() const { return num_classes_; }

  // Parity and tests: how many denoising queries to aim for (0 turns denoising off), and where
  // the denoising noise comes from (default: the device's default generator, which the host seeds).
  using NoiseSource = std::function<sdk::detr::DenoisingNoise(const sdk::detr::DenoisingLayout&, int64_t batch)>;
  void set_num_denoising(int64_t n) { config_.num_denoising = n; }
  void set_noise_source(NoiseSource source) { noise_source_ = std::move(source); }

  // Rebuilds the anchors / valid_mask buffers from eval_size (after something overwrote them,
  // e.g. a test's deterministic fill).
  void reset_anchor_buffers();

 private:
  struct Queries {
    torch::Tensor target, reference_unact, enc_boxes, enc_logits;
  };
  struct LayerOutputs {
    torch::Tensor boxes, logits, corners, refs;  // [L, B, Q', ...]
    torch::Tensor pre_boxes, pre_logits;         // [B, Q', ...]
  };
  DecoderMemory flatten_levels(const std::vector<torch::Tensor>& projected) const;
  Queries select_queries(const DecoderMemory& memory);
  std::optional<sdk::detr::DenoisingQueries> denoising_queries(const sdk::Targets& targets, int64_t height,
                                                               int64_t width);
  LayerOutputs run_layers(torch::Tensor target, const torch::Tensor& reference_unact, const DecoderMemory& memory,
                          const torch::Tensor& attn_mask);
  sdk::detr::EncoderAnchors anchors_for(const sdk::detr::SpatialShapes& shapes, const torch::TensorOptions& options);
  sdk::detr::SpatialShapes eval_shapes() const;
  void reset_parameters();

  DfineConfig config_;
  int64_t num_classes_;
  std::array<int64_t, 2> eval_size_;
  torch::Tensor up, reg_scale, anchors, valid_mask;
  torch::nn::ModuleList input_proj;
  LayerStack decoder{nullptr};
  torch::nn::Embedding denoising_class_embed{nullptr};
  sdk::detr::Mlp query_pos_head{nullptr};
  torch::nn::Sequential enc_output{nullptr};
  sdk::Linear enc_score_head{nullptr};
  sdk::detr::Mlp enc_bbox_head{nullptr};
  torch::nn::ModuleList dec_score_head;
  sdk::detr::Mlp pre_bbox_head{nullptr};
  torch::nn::ModuleList dec_bbox_head;
  std::map<std::tuple<std::vector<int64_t>, std::string, int>, sdk::detr::EncoderAnchors> anchor_cache_;
  sdk::detr::DenoisingInputs prepared_;
  int64_t prepared_height_ = 0, prepared_width_ = 0;
  NoiseSource noise_source_;
};
TORCH_MODULE(DfineDecoder);

}  // namespace libreyolo::dfine
