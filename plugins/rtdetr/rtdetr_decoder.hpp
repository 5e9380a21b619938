#pragma once
// RT-DETR's decoder head (LibreYOLO's RTDETRTransformer, registered as "decoder"): input
// projection of the encoder's levels, query selection from the encoder's memory (top-Q anchors
// by class score), optional contrastive denoising queries built from the ground truth, and a
// stack of decoder layers with iterative box refinement and per-layer heads.
//
// The projection is split from the rest: without a prepared step (inference) only it joins the
// capturable region and forward() runs the rest; in training the denoising queries are prepared
// before the region (prepare_denoising) and forward_prepared runs the rest inside it.

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "libreyolo/sdk/detr/query_anchors.hpp"
#include "config.hpp"
#include "decoder_layer.hpp"
#include "libreyolo/sdk/detr/denoising.hpp"
#include "libreyolo/sdk/detr/denoising_inputs.hpp"
#include "libreyolo/sdk/targets.hpp"
#include "libreyolo/sdk/detr/mlp.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace libreyolo::rtdetr {

// LibreYOLO's TransformerDecoder holds only its layers (keys decoder.decoder.layers.k.*).
class LayerStackImpl : public torch::nn::Module {
 public:
  LayerStackImpl(const RtdetrConfig& config);
  torch::nn::ModuleList layers;
};
TORCH_MODULE(LayerStack);

class RtdetrDecoderImpl : public torch::nn::Module {
 public:
  RtdetrDecoderImpl(const RtdetrConfig& config, int64_t num_classes);

  // The encoder's levels [B, encoder_hidden, h, w] -> [B, D, h, w] (1x1 conv + BatchNorm).
  std::vector<torch::Tensor> project(const std::vector<torch::Tensor>& levels);
  // Projected levels -> outputs laid out as decoder_outputs.hpp says. `targets` (pixels of the
  // network input) only in training, for the denoising queries.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& projected, const sdk::Targets* targets);

  // The whole decoder inside the capturable region (CaptureRegion::network_with_denoising), in
  // three parts. prepare_denoising (eager, before the region) builds the batch's denoising
  // queries; with static_shapes it pads them to 2 x num_denoising queries (more only for a
  // batch with more GTs than num_denoising) in tensors kept per batch size and count, so a
  // recorded graph finds the next batch's there; it returns that count as the region's key.
  // forward_prepared (in the region) runs query selection and the layers on them;
  // finish_prepared (after it) lays the outputs out as decoder_outputs.hpp says, without the
  // padding, and forgets the preparation.
  std::vector<int64_t> prepare_denoising(const sdk::Targets& targets, int64_t height, int64_t width,
                                         bool static_shapes);
  bool prepared() const { return prepared_.prepared(); }
  std::vector<torch::Tensor> forward_prepared(const std::vector<torch::Tensor>& projected);
  std::vector<torch::Tensor> finish_prepared(const std::vector<torch::Tensor>& region_outputs);

  const RtdetrConfig& config() const { return config_; }
  int64_t num_classes() const { return num_classes_; }

  // Parity and tests: how many denoising queries to aim for (0 turns denoising off), and where
  // the denoising noise comes from (default: drawn from the device's default generator, which
  // the host seeds, so runs with one seed reproduce).
  using NoiseSource = std::function<sdk::detr::DenoisingNoise(const sdk::detr::DenoisingLayout&, int64_t batch)>;
  void set_num_denoising(int64_t n) { config_.num_denoising = n; }
  void set_noise_source(NoiseSource source) { noise_source_ = std::move(source); }

 private:
  struct Queries {
    torch::Tensor target, reference_unact, enc_boxes, enc_logits;
  };
  struct LayerOutputs {
    torch::Tensor boxes, logits;  // [L, B, Q', 4], [L, B, Q', C]
  };
  DecoderMemory flatten_levels(const std::vector<torch::Tensor>& projected) const;
  Queries select_queries(const DecoderMemory& memory);
  std::optional<sdk::detr::DenoisingQueries> denoising_queries(const sdk::Targets& targets, int64_t height,
                                                               int64_t width);
  LayerOutputs run_layers(torch::Tensor target, const torch::Tensor& reference_unact, const DecoderMemory& memory,
                          const torch::Tensor& attn_mask);
  const sdk::detr::EncoderAnchors& anchors_for(const sdk::detr::SpatialShapes& shapes, const torch::TensorOptions& options);
  void reset_parameters();

  RtdetrConfig config_;
  int64_t num_classes_;
  torch::nn::ModuleList input_proj;
  LayerStack decoder{nullptr};
  torch::nn::Embedding denoising_class_embed{nullptr};
  sdk::detr::Mlp query_pos_head{nullptr};
  torch::nn::Sequential enc_output{nullptr};
  sdk::Linear enc_score_head{nullptr};
  sdk::detr::Mlp enc_bbox_head{nullptr};
  torch::nn::ModuleList dec_score_head, dec_bbox_head;
  std::map<std::tuple<std::vector<int64_t>, std::string, int>, sdk::detr::EncoderAnchors> anchor_cache_;
  NoiseSource noise_source_;
  sdk::detr::DenoisingInputs prepared_;
  int64_t prepared_height_ = 0, prepared_width_ = 0;
};
TORCH_MODULE(RtdetrDecoder);

}  // namespace libreyolo::rtdetr
