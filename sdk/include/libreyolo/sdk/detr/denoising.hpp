#pragma once
// Contrastive denoising queries (DN-DETR / DINO, as RT-DETR trains them): noised copies of the
// ground truth join the decoder's queries during training, and the decoder learns to reconstruct
// the positives and reject the negatives. The computation is LibreYOLO's
// get_contrastive_denoising_training_group, reshaped for the host:
//   - the padded batch goes through whole-tensor operations (no loop over images, no reading of
//     the device); only the layout, from GT counts the host already knows, is decided on the host;
//   - the randomness is drawn separately (draw_denoising_noise), so that tests and parity checks
//     can inject given noise and the rest is a pure function.
// Query layout: num_group groups of 2 * max_gt queries; in each group the first max_gt are
// positives (small box noise) and the next max_gt negatives (larger noise), one per GT column.

#include <torch/nn/modules/embedding.h>
#include <torch/types.h>

#include <ATen/core/Generator.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

struct DenoisingConfig {
  int64_t num_denoising = 100;    // target number of denoising queries; <= 0 turns denoising off
  double label_noise_ratio = 0.5;  // a real GT's label is replaced with probability ratio / 2
  double box_noise_scale = 1.0;    // box corners move by up to scale * half the box size
  // A negative's corners can cross (x1 past x2), leaving a negative width or height. LibreYOLO's
  // D-FINE flips it to positive (input_query_bbox[input_query_bbox < 0] *= -1); its RT-DETR
  // keeps it, so inverse_sigmoid maps that size to its lower clamp (about -11.5).
  bool flip_negative_sizes = false;
};

struct DenoisingLayout {
  int64_t max_gt = 0;          // most GT boxes of any image in the batch
  int64_t num_group = 0;       // max(1, num_denoising / max_gt)
  int64_t num_queries_dn = 0;  // 2 * max_gt * num_group
  bool active() const { return num_queries_dn > 0; }
};

// From the host-known GT counts of the batch: groups = max(1, num_denoising / max_gt). Inactive
// (all zero) when num_denoising <= 0 or no image has a box. Throws on a negative count or an
// invalid config (label_noise_ratio outside [0, 1], negative box_noise_scale).
LIBREYOLO_SDK_API DenoisingLayout denoising_layout(const std::vector<int64_t>& gt_counts,
                                                   const DenoisingConfig& config);

// The random draws of one batch, in LibreYOLO's meaning (Ndn = layout.num_queries_dn).
struct DenoisingNoise {
  torch::Tensor label_uniform;  // [B, Ndn] float [0, 1): a label flips where < label_noise_ratio / 2
  torch::Tensor new_label;      // [B, Ndn] int64 [0, C): the label it flips to
  torch::Tensor box_sign;       // [B, Ndn, 4] float +-1: direction of each corner's move
  torch::Tensor box_uniform;    // [B, Ndn, 4] float [0, 1): its size (+1 for negatives), in half-sizes
};

// Draws the noise on device_options' device (float32 and int64; the dtype in device_options is
// ignored), from `generator` when given (it must live on that device type), else the default one.
LIBREYOLO_SDK_API DenoisingNoise draw_denoising_noise(const DenoisingLayout& layout, int64_t batch,
                                                      int64_t num_classes,
                                                      const torch::TensorOptions& device_options,
                                                      std::optional<at::Generator> generator = std::nullopt);

struct DenoisingQueries {
  torch::Tensor class_embed;  // [B, Ndn, D] embedding of the noised labels; padding rows use index num_classes
  torch::Tensor bbox_unact;   // [B, Ndn, 4] inverse_sigmoid of the noised normalised cxcywh boxes
  torch::Tensor attn_mask;    // [Ndn + Q, Ndn + Q] bool, true = may NOT attend (LibreYOLO's convention)
  torch::Tensor matched_gt;   // [B, Ndn] int64: the GT column a positive query reconstructs, -1 otherwise
  DenoisingLayout layout;
  torch::Tensor labels;       // [B, Ndn] int64: the noised labels class_embed embeds (num_classes: padding)
};

// gt_labels [B, M] integral, gt_boxes [B, M, 4] normalised cxcywh, gt_valid [B, M] bool; only the
// first layout.max_gt columns are read (M may be larger), and invalid rows are padding whatever
// they hold. class_embed needs at least num_classes + 1 rows (row num_classes is the padding
// label). matched_gt gives, per image, LibreYOLO's dn_positive_idx -> gt index pairs when an
// image's valid rows come first, as the host pads them. With an inactive layout the tensors are
// empty ([B, 0, ...]) and attn_mask is [Q, Q] all false.
// Unlike LibreYOLO, bbox_unact is inverse_sigmoid'ed also when box_noise_scale is 0 (LibreYOLO
// then returns plain cxcywh where the decoder expects logits).
LIBREYOLO_SDK_API DenoisingQueries make_denoising_queries(const torch::Tensor& gt_labels,
                                                          const torch::Tensor& gt_boxes,
                                                          const torch::Tensor& gt_valid,
                                                          const DenoisingLayout& layout,
                                                          const DenoisingNoise& noise, int64_t num_classes,
                                                          int64_t num_queries, torch::nn::Embedding& class_embed,
                                                          const DenoisingConfig& config);

// Denoising queries padded to `capacity` (>= layout.num_queries_dn) queries, so that a decoder
// fed them has the same shapes whatever the batch's GT counts and a CUDA graph can replay it.
// The padding queries follow the real ones: label num_classes (the embedding's padding row),
// box logits 0 (a centred box of half the input's size), and in the mask each may attend only
// itself while no other query may attend it. A real query's output is then what it is without
// padding (up to the rounding of matrix products of another size), and the padding rows have
// finite outputs nothing reads. An inactive layout (no GT) gives padding only.
struct PaddedDenoising {
  torch::Tensor labels;      // [B, capacity] int64
  torch::Tensor bbox_unact;  // [B, capacity, 4] float32
  torch::Tensor attn_mask;   // [capacity + Q, capacity + Q] bool, true = may NOT attend
};

LIBREYOLO_SDK_API PaddedDenoising pad_denoising(const DenoisingQueries& queries, int64_t capacity,
                                                int64_t num_queries, int64_t num_classes);

// A decoder output whose query axis `dim` holds the `num_denoising` denoising queries first and
// the matching queries after: {denoising part, matching part}. One split, so the backward is one
// concatenation (two narrows would each fill a zero tensor of the whole output and copy into it).
inline std::pair<torch::Tensor, torch::Tensor> split_denoising(const torch::Tensor& output, int64_t dim,
                                                               int64_t num_denoising) {
  auto parts = output.split_with_sizes({num_denoising, output.size(dim) - num_denoising}, dim);
  return {parts[0], parts[1]};
}

}  // namespace libreyolo::sdk::detr
