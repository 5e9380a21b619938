#pragma once
// A DETR decoder's denoising queries prepared before its captured region
// (CaptureRegion::network_with_denoising; docs/families/rtdetr.md, "The capture seam"): the
// family builds the batch's queries eagerly in Detector::prepare_training_forward and hands them
// here; the region reads inputs(); after it, split() drops the padding from the layers' outputs
// and forget() ends the step. With static_shapes the queries are padded to 2 x num_denoising
// (more only for a batch with more GTs than num_denoising in one image) and copied into tensors
// kept per (batch, count), so a CUDA graph recorded on them finds the next batch's queries where
// it recorded them.

#include <torch/nn/modules/embedding.h>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "libreyolo/sdk/detr/denoising.hpp"
#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/targets.hpp"

namespace libreyolo::sdk::detr {

class LIBREYOLO_SDK_API DenoisingInputs {
 public:
  struct Settings {
    int64_t num_denoising = 100;  // the decoder's setting; the padded count is twice it
    int64_t num_queries = 300;    // matching queries after the denoising ones
    int64_t num_classes = 80;     // the padding label
  };

  // Keeps the step's queries (nullopt: the batch has no GT, or denoising is off) and returns
  // the region's key: {the count of queries the layers see before the matching ones}.
  std::vector<int64_t> prepare(std::optional<DenoisingQueries> queries, int64_t batch, const torch::Device& device,
                               const Settings& settings, bool static_shapes);
  // prepare() for a training batch, as both DETR decoders call it: make_queries (the family's
  // own denoising queries for these targets) runs only when settings.num_denoising > 0, and
  // without gradients (the labels are embedded inside the region; here only indices and boxes).
  std::vector<int64_t> prepare_batch(const Targets& targets, const Settings& settings, bool static_shapes,
                                     const std::function<std::optional<DenoisingQueries>()>& make_queries);
  bool prepared() const { return prepared_; }
  // Denoising queries the layers see (0: none) and what they read: labels to embed, box
  // logits, the attention mask over them and the matching queries.
  int64_t capacity() const { return capacity_; }
  const PaddedDenoising& inputs() const { return inputs_; }
  // The batch's own queries (for matched_gt and the criterion), when it has a GT.
  const std::optional<DenoisingQueries>& real() const { return real_; }
  // The decoder layers' inputs: the prepared denoising queries (labels embedded by
  // class_embed, in the matching queries' dtypes) before the matching queries, and the
  // attention mask over both (undefined when there are none).
  struct LayerInputs {
    torch::Tensor target, reference_unact, attn_mask;
  };
  LayerInputs join(const torch::Tensor& target, const torch::Tensor& reference_unact,
                   torch::nn::Embedding& class_embed) const;
  // A layer output whose query axis `dim` holds capacity() denoising queries, then the matching
  // ones: {the real denoising queries, or undefined where there are none; the matching queries}.
  std::pair<torch::Tensor, torch::Tensor> split(const torch::Tensor& output, int64_t dim) const;
  void forget();

 private:
  const PaddedDenoising& kept(const PaddedDenoising& padded);

  bool prepared_ = false;
  int64_t capacity_ = 0;
  std::optional<DenoisingQueries> real_;
  PaddedDenoising inputs_;
  std::map<std::pair<int64_t, int64_t>, PaddedDenoising> static_inputs_;  // by (batch, capacity)
};

}  // namespace libreyolo::sdk::detr
