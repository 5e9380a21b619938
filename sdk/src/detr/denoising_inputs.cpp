#include "libreyolo/sdk/detr/denoising_inputs.hpp"

#include <torch/torch.h>

#include <algorithm>

namespace libreyolo::sdk::detr {
namespace {

// A batch without GT as queries of count zero, for pad_denoising.
DenoisingQueries no_queries(int64_t batch, int64_t num_queries, const torch::Device& device) {
  DenoisingQueries none;
  const auto whole = torch::dtype(torch::kLong).device(device);
  none.labels = torch::zeros({batch, 0}, whole);
  none.bbox_unact = torch::zeros({batch, 0, 4}, whole.dtype(torch::kFloat32));
  none.attn_mask = torch::zeros({num_queries, num_queries}, whole.dtype(torch::kBool));
  none.matched_gt = none.labels;
  return none;
}

}  // namespace

std::vector<int64_t> DenoisingInputs::prepare(std::optional<DenoisingQueries> queries, int64_t batch,
                                              const torch::Device& device, const Settings& settings,
                                              bool static_shapes) {
  forget();
  real_ = std::move(queries);
  const int64_t real = real_ ? real_->layout.num_queries_dn : 0;
  capacity_ = static_shapes && settings.num_denoising > 0 ? std::max(real, 2 * settings.num_denoising) : real;
  if (capacity_ > 0) {
    const auto padded = pad_denoising(real_ ? *real_ : no_queries(batch, settings.num_queries, device), capacity_,
                                      settings.num_queries, settings.num_classes);
    inputs_ = static_shapes ? kept(padded) : padded;
  }
  prepared_ = true;
  return {capacity_};
}

std::vector<int64_t> DenoisingInputs::prepare_batch(
    const Targets& targets, const Settings& settings, bool static_shapes,
    const std::function<std::optional<DenoisingQueries>()>& make_queries) {
  std::optional<DenoisingQueries> queries;
  if (settings.num_denoising > 0) {
    torch::NoGradGuard no_grad;
    queries = make_queries();
  }
  return prepare(std::move(queries), targets.batch_size(), targets.boxes.device(), settings, static_shapes);
}

// Copies `padded` into the tensors kept for its shape (made on first use) and returns those.
const PaddedDenoising& DenoisingInputs::kept(const PaddedDenoising& padded) {
  const auto key = std::make_pair(padded.labels.size(0), padded.labels.size(1));
  auto found = static_inputs_.find(key);
  if (found == static_inputs_.end()) {
    const PaddedDenoising copy{padded.labels.clone(), padded.bbox_unact.clone(), padded.attn_mask.clone()};
    return static_inputs_.emplace(key, copy).first->second;
  }
  found->second.labels.copy_(padded.labels);
  found->second.bbox_unact.copy_(padded.bbox_unact);
  found->second.attn_mask.copy_(padded.attn_mask);
  return found->second;
}

DenoisingInputs::LayerInputs DenoisingInputs::join(const torch::Tensor& target, const torch::Tensor& reference_unact,
                                                   torch::nn::Embedding& class_embed) const {
  TORCH_CHECK(prepared_, "DenoisingInputs::join: nothing prepared");
  if (capacity_ == 0) return {target, reference_unact, torch::Tensor()};
  return {torch::cat({class_embed(inputs_.labels).to(target.dtype()), target}, 1),
          torch::cat({inputs_.bbox_unact.to(reference_unact.dtype()), reference_unact}, 1), inputs_.attn_mask};
}

std::pair<torch::Tensor, torch::Tensor> DenoisingInputs::split(const torch::Tensor& output, int64_t dim) const {
  TORCH_CHECK(prepared_, "DenoisingInputs::split: nothing prepared");
  if (capacity_ == 0) return {torch::Tensor(), output};
  // Real denoising queries | padding | matching queries: one split, one concatenation back.
  const int64_t real = real_ ? real_->layout.num_queries_dn : 0;
  const auto parts = output.split_with_sizes({real, capacity_ - real, output.size(dim) - capacity_}, dim);
  return {real > 0 ? parts[0] : torch::Tensor(), parts[2]};
}

void DenoisingInputs::forget() {
  prepared_ = false;
  capacity_ = 0;
  real_.reset();
  inputs_ = PaddedDenoising{};
}

}  // namespace libreyolo::sdk::detr
