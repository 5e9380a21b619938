#include "libreyolo/sdk/detr/denoising.hpp"

#include <torch/torch.h>

#include <algorithm>

#include "libreyolo/sdk/detr/box_ops.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"

namespace libreyolo::sdk::detr {
namespace {

void check_config(const DenoisingConfig& config) {
  TORCH_CHECK(config.label_noise_ratio >= 0.0 && config.label_noise_ratio <= 1.0,
              "denoising: label_noise_ratio is a probability and must lie in [0, 1], got ", config.label_noise_ratio);
  TORCH_CHECK(config.box_noise_scale >= 0.0, "denoising: box_noise_scale must be >= 0 (0 turns box noise off), got ",
              config.box_noise_scale);
}

void check_shape(const torch::Tensor& t, at::IntArrayRef expected, const char* what) {
  TORCH_CHECK(t.defined() && t.sizes() == expected, "make_denoising_queries: ", what, " must be ", expected,
              ", got ", t.defined() ? t.sizes() : at::IntArrayRef{}, (t.defined() ? "" : " (undefined)"));
}

void check_query_inputs(const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes, const torch::Tensor& gt_valid,
                        const DenoisingLayout& layout, int64_t num_classes, int64_t num_queries,
                        const torch::nn::Embedding& class_embed) {
  TORCH_CHECK(gt_labels.dim() == 2, "make_denoising_queries: gt_labels must be [B, M], got ", gt_labels.sizes());
  const auto batch = gt_labels.size(0), columns = gt_labels.size(1);
  TORCH_CHECK(!gt_labels.is_floating_point() && gt_labels.scalar_type() != torch::kBool,
              "make_denoising_queries: gt_labels must hold integer class indices (", gt_labels.scalar_type(),
              " given): convert with .to(torch::kLong)");
  check_shape(gt_boxes, {batch, columns, 4}, "gt_boxes");
  check_shape(gt_valid, {batch, columns}, "gt_valid");
  TORCH_CHECK(gt_valid.scalar_type() == torch::kBool, "make_denoising_queries: gt_valid must be bool, got ",
              gt_valid.scalar_type());
  TORCH_CHECK(columns >= layout.max_gt, "make_denoising_queries: the layout expects ", layout.max_gt,
              " GT columns but the targets have ", columns, ": build the layout from these targets' counts");
  TORCH_CHECK(num_classes > 0 && num_queries >= 0, "make_denoising_queries: num_classes must be positive and ",
              "num_queries >= 0, got ", num_classes, " and ", num_queries);
  TORCH_CHECK(class_embed->weight.size(0) > num_classes, "make_denoising_queries: class_embed has ",
              class_embed->weight.size(0), " rows; it needs num_classes + 1 = ", num_classes + 1,
              " (the last one embeds padding)");
}

void check_noise(const DenoisingNoise& noise, int64_t batch, int64_t total) {
  check_shape(noise.label_uniform, {batch, total}, "noise.label_uniform");
  check_shape(noise.new_label, {batch, total}, "noise.new_label");
  check_shape(noise.box_sign, {batch, total, 4}, "noise.box_sign");
  check_shape(noise.box_uniform, {batch, total, 4}, "noise.box_uniform");
}

// Query j of a group of 2 * max_gt: negative when j mod (2 max_gt) >= max_gt. [Ndn] bool.
torch::Tensor negative_queries(const DenoisingLayout& layout, const torch::Device& device) {
  const auto index = torch::arange(layout.num_queries_dn, torch::dtype(torch::kLong).device(device));
  return index.remainder(2 * layout.max_gt) >= layout.max_gt;
}

// Boxes [B, Ndn, 4] cxcywh moved by the noise: each corner by sign * (uniform, + 1 for negatives)
// half-sizes * scale, clipped to the image, back to cxcywh; with flip_negative_sizes, abs() of the
// result (cx, cy are never negative, so only crossed widths and heights change).
torch::Tensor noised_boxes(const torch::Tensor& boxes, const torch::Tensor& negative, const DenoisingNoise& noise,
                           double scale, bool flip_negative_sizes) {
  const auto corners = losses::xywh_to_xyxy(boxes);
  const auto reach = (boxes.narrow(-1, 2, 2) * 0.5).repeat({1, 1, 2}) * scale;
  const auto uniform = noise.box_uniform.to(boxes.dtype());
  const auto magnitude = torch::where(negative.view({1, -1, 1}), uniform + 1.0, uniform);
  const auto moved = (corners + magnitude * noise.box_sign.to(boxes.dtype()) * reach).clamp(0.0, 1.0);
  const auto cxcywh = losses::xyxy_to_xywh(moved);
  return flip_negative_sizes ? cxcywh.abs() : cxcywh;
}

// [Ndn + Q, Ndn + Q], true = blocked: a denoising query sees only its own group (and the matching
// queries); a matching query sees no denoising query, so no GT information leaks into matching.
torch::Tensor attention_mask(const DenoisingLayout& layout, int64_t num_queries, const torch::Device& device) {
  const auto total = layout.num_queries_dn + num_queries;
  const auto index = torch::arange(total, torch::dtype(torch::kLong).device(device));
  const auto is_dn = index < layout.num_queries_dn;
  const auto group = torch::where(is_dn, index.div(std::max<int64_t>(1, 2 * layout.max_gt), "floor"),
                                  torch::full_like(index, -1));
  return is_dn.unsqueeze(0) & (group.unsqueeze(1) != group.unsqueeze(0));
}

DenoisingQueries inactive_queries(const torch::Tensor& gt_boxes, int64_t num_queries,
                                  torch::nn::Embedding& class_embed) {
  const auto batch = gt_boxes.size(0);
  const auto device = gt_boxes.device();
  const auto none = torch::zeros({batch, 0}, torch::dtype(torch::kLong).device(device));
  return {torch::zeros({batch, 0, class_embed->weight.size(1)}, class_embed->weight.options()),
          torch::zeros({batch, 0, 4}, gt_boxes.options().dtype(torch::kFloat32)),
          torch::zeros({num_queries, num_queries}, torch::dtype(torch::kBool).device(device)), none,
          DenoisingLayout{}, none};
}

}  // namespace

DenoisingLayout denoising_layout(const std::vector<int64_t>& gt_counts, const DenoisingConfig& config) {
  check_config(config);
  int64_t max_gt = 0;
  for (const auto count : gt_counts) {
    TORCH_CHECK(count >= 0, "denoising_layout: GT counts cannot be negative, got ", count);
    max_gt = std::max(max_gt, count);
  }
  if (config.num_denoising <= 0 || max_gt == 0) return {};
  const auto groups = std::max<int64_t>(1, config.num_denoising / max_gt);
  return {max_gt, groups, 2 * max_gt * groups};
}

DenoisingNoise draw_denoising_noise(const DenoisingLayout& layout, int64_t batch, int64_t num_classes,
                                    const torch::TensorOptions& device_options, std::optional<at::Generator> generator) {
  TORCH_CHECK(batch >= 0 && num_classes > 0, "draw_denoising_noise: batch must be >= 0 and num_classes positive, got ",
              batch, " and ", num_classes);
  TORCH_CHECK(!generator || generator->device().type() == device_options.device().type(),
              "draw_denoising_noise: the generator lives on ", generator ? generator->device() : torch::Device("cpu"),
              " but the noise is drawn on ", device_options.device(), ": give a generator of that device type");
  const auto total = layout.num_queries_dn;
  const auto real = device_options.dtype(torch::kFloat32);
  const auto whole = device_options.dtype(torch::kLong);
  const c10::optional<at::Generator> gen = generator ? c10::optional<at::Generator>(*generator) : c10::nullopt;
  DenoisingNoise noise;
  noise.label_uniform = torch::rand({batch, total}, gen, real);
  noise.new_label = torch::randint(0, num_classes, {batch, total}, gen, whole);
  noise.box_sign = torch::randint(0, 2, {batch, total, 4}, gen, real) * 2.0 - 1.0;
  noise.box_uniform = torch::rand({batch, total, 4}, gen, real);
  return noise;
}

DenoisingQueries make_denoising_queries(const torch::Tensor& gt_labels, const torch::Tensor& gt_boxes,
                                        const torch::Tensor& gt_valid, const DenoisingLayout& layout,
                                        const DenoisingNoise& noise, int64_t num_classes, int64_t num_queries,
                                        torch::nn::Embedding& class_embed, const DenoisingConfig& config) {
  check_config(config);
  check_query_inputs(gt_labels, gt_boxes, gt_valid, layout, num_classes, num_queries, class_embed);
  if (!layout.active()) return inactive_queries(gt_boxes, num_queries, class_embed);
  const auto batch = gt_labels.size(0), m = layout.max_gt, copies = 2 * layout.num_group;
  check_noise(noise, batch, layout.num_queries_dn);
  // Every group repeats the GT columns twice: positives, then negatives.
  const auto valid = gt_valid.narrow(1, 0, m).repeat({1, copies});
  auto labels = torch::where(gt_valid.narrow(1, 0, m), gt_labels.narrow(1, 0, m).to(torch::kLong),
                             torch::full_like(gt_labels.narrow(1, 0, m), num_classes, torch::kLong))
                    .repeat({1, copies});
  // Padding rows become zero boxes (LibreYOLO's padding) whatever the caller's padding holds.
  auto boxes = torch::where(gt_valid.narrow(1, 0, m).unsqueeze(-1), gt_boxes.narrow(1, 0, m).to(torch::kFloat32),
                            torch::zeros({}, gt_boxes.options().dtype(torch::kFloat32)))
                   .repeat({1, copies, 1});
  const auto negative = negative_queries(layout, gt_labels.device());
  if (config.label_noise_ratio > 0.0) {
    const auto flip = (noise.label_uniform < config.label_noise_ratio * 0.5) & valid;
    labels = torch::where(flip, noise.new_label.to(torch::kLong), labels);
  }
  if (config.box_noise_scale > 0.0) boxes = noised_boxes(boxes, negative, noise, config.box_noise_scale, config.flip_negative_sizes);
  const auto query_index = torch::arange(layout.num_queries_dn, torch::dtype(torch::kLong).device(gt_labels.device()));
  const auto matched = torch::where(valid & negative.logical_not().unsqueeze(0), query_index.remainder(2 * m),
                                    torch::full_like(query_index, -1));
  return {class_embed(labels), inverse_sigmoid(boxes), attention_mask(layout, num_queries, gt_labels.device()),
          matched, layout, labels};
}

PaddedDenoising pad_denoising(const DenoisingQueries& queries, int64_t capacity, int64_t num_queries,
                              int64_t num_classes) {
  const int64_t real = queries.layout.num_queries_dn;
  TORCH_CHECK(capacity >= real, "pad_denoising: capacity ", capacity, " is smaller than the batch's ", real,
              " denoising queries");
  TORCH_CHECK(queries.labels.defined() && queries.labels.dim() == 2 && queries.labels.size(1) == real &&
                  queries.attn_mask.dim() == 2 && queries.attn_mask.size(0) == real + num_queries,
              "pad_denoising: the queries' labels must be [B, ", real, "] and their mask [", real + num_queries,
              ", ", real + num_queries, "] (num_queries ", num_queries, "), got ", queries.labels.sizes(), " and ",
              queries.attn_mask.sizes());
  const int64_t batch = queries.labels.size(0), padding = capacity - real, total = capacity + num_queries;
  const auto whole = torch::dtype(torch::kLong).device(queries.labels.device());
  PaddedDenoising padded;
  padded.labels = torch::cat({queries.labels.to(torch::kLong), torch::full({batch, padding}, num_classes, whole)}, 1);
  padded.bbox_unact = torch::cat({queries.bbox_unact.to(torch::kFloat32),
                                  torch::zeros({batch, padding, 4}, whole.dtype(torch::kFloat32))},
                                 1);
  // The unpadded mask's rows and columns land at the real denoising queries' and the matching
  // queries' places; every other entry blocks, except a padding query's own.
  const auto kept = torch::cat({torch::arange(real, whole), torch::arange(capacity, total, whole)});
  padded.attn_mask = torch::ones({total, total}, whole.dtype(torch::kBool));
  padded.attn_mask.index_put_({kept.unsqueeze(1), kept.unsqueeze(0)}, queries.attn_mask.to(torch::kBool));
  const auto padding_rows = torch::arange(real, capacity, whole);
  // The value as a device tensor: a host scalar would be copied to the device from pageable
  // memory, which waits for the device (seen on the H200: a second host sync every step).
  padded.attn_mask.index_put_({padding_rows, padding_rows}, torch::zeros({}, whole.dtype(torch::kBool)));
  return padded;
}

}  // namespace libreyolo::sdk::detr
