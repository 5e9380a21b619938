#pragma once
// The losses on FDR corner distributions (fdr.hpp) that D-FINE introduced and DEIM reuses,
// as LibreYOLO's models/dfine/loss.py computes them (loss_local):
//   - FGL, fine-grained localisation: each edge's distribution is pulled towards the two bins
//     around the ground truth's bin coordinate, in proportion to its distance from each
//     (a two-sided cross-entropy; LibreYOLO's unimodal_distribution_focal_loss);
//   - DDF, decoupled distillation focal: every edge of an earlier decoder layer is pulled
//     towards the final layer's distribution (the teacher) by a temperature-softened KL,
//     weighted by localisation quality, with the matched and unmatched queries averaged
//     separately and mixed by the square roots of their counts (so the few matched queries are
//     not drowned by the many unmatched ones, nor the other way round).
// Nothing here reads the device back; reductions over a dynamic set of matched queries are
// masked sums divided by counts kept as tensors.

#include <torch/types.h>

#include "libreyolo/sdk/detr/fdr.hpp"
#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::detr {

// FGL per edge, unreduced and unweighted: edge_logits [..., N, reg_max + 1] (one row per box
// edge, in the order box_to_edge_bins returns its bins), bins [N] each (broadcast over the
// leading dimensions) -> [..., N] = CE(logits, left) * weight_left + CE(logits, left + 1) *
// weight_right with left = floor(bin). A NaN bin (a NaN reference box) counts as bin 0 instead
// of indexing out of range. The caller weights (D-FINE: by the box's IoU) and normalises.
LIBREYOLO_SDK_API torch::Tensor fine_grained_localization_loss(const torch::Tensor& edge_logits, const EdgeBins& bins);

// T^2 KL(softmax(teacher / T) || softmax(student / T)) per edge: [..., reg_max + 1] each (the
// teacher broadcast against the student, and detached) -> [...]. Bins where the teacher's
// probability is 0 contribute 0, as in torch's kl_div.
LIBREYOLO_SDK_API torch::Tensor distillation_kl(const torch::Tensor& student_edge_logits,
                                                const torch::Tensor& teacher_edge_logits, double temperature = 5.0);

// How DDF mixes the matched and the unmatched means: sqrt(4 n * 8 / B) for the n matched
// queries and the same for the unmatched ones (LibreYOLO's num_pos, num_neg: 4 edges per query,
// counts scaled to a batch of 8). Scalars on matched's device.
struct DistillationBalance {
  torch::Tensor matched, unmatched;
};

// From the matches of the batch's ordinary queries ([B, Q] bool). D-FINE uses the balance of
// its ordinary queries for the denoising layers too.
LIBREYOLO_SDK_API DistillationBalance distillation_balance(const torch::Tensor& matched);

// Each query's DDF weight [..., B, Q]: the matched ones their box's IoU with its ground truth
// (matched_iou, [..., B, Q]), the others the teacher's highest class probability
// (sigmoid(teacher_logits [B, Q, C]).max). Detached.
LIBREYOLO_SDK_API torch::Tensor distillation_weight(const torch::Tensor& teacher_logits, const torch::Tensor& matched,
                                                    const torch::Tensor& matched_iou);

// DDF of one or several sets: kl [..., B, Q, 4] (distillation_kl per edge), weight [..., B, Q],
// matched [..., B, Q] bool -> [...]: (mean over matched edges of weight * kl * n_m + the same over
// unmatched edges * n_u) / (n_m + n_u), an empty group's mean counting as 0.
LIBREYOLO_SDK_API torch::Tensor decoupled_distillation_loss(const torch::Tensor& kl, const torch::Tensor& weight,
                                                            const torch::Tensor& matched,
                                                            const DistillationBalance& balance);

}  // namespace libreyolo::sdk::detr
