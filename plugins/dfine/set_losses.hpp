#pragma once
// Every loss term of a stack of prediction sets at once (one pass of kernels for all decoder
// layers and the extra sets instead of one per set): D-FINE's VFL, L1 and GIoU for all sets,
// FGL for the sets with corner distributions (the decoder layers, always first), DDF for those
// layers against the last of them. The criterion calls it twice: for the ordinary queries
// (decoder layers, pre, encoder) and for the denoising ones (decoder layers, pre).

#include <torch/types.h>

#include "criterion_ground_truth.hpp"
#include "dfine_loss_settings.hpp"
#include "libreyolo/sdk/detr/distribution_losses.hpp"

namespace libreyolo::dfine {

struct SetStack {
  torch::Tensor logits, boxes;      // [S, B, Q, C], [S, B, Q, 4]: the L decoder layers, then the others
  torch::Tensor corners;            // [L, B, Q, 4 (reg_max + 1)]: the decoder layers' distributions
  torch::Tensor reference;          // [B, Q, 4]: the reference boxes of the FGL targets
  torch::Tensor class_matches;      // [S, B, Q]: the matches of the VFL terms
  torch::Tensor box_matches;        // [B, Q]: the matches of every other term (the same for all sets)
  torch::Tensor class_normaliser;   // scalar: what the VFL sums are divided by
  torch::Tensor box_normaliser;     // scalar: the same for L1, GIoU and FGL
};

// The decoder's FDR parameters and the DDF mixing of the step.
struct LocalLossContext {
  torch::Tensor up, reg_scale;  // [1] each
  sdk::detr::DistillationBalance balance;
};

// Weighted and normalised terms: vfl, bbox, giou [S]; fgl [L]; ddf [L - 1] (layer i against
// layer L - 1, the teacher).
struct StackLosses {
  torch::Tensor vfl, bbox, giou, fgl, ddf;
};

StackLosses stack_losses(const SetStack& stack, const CriterionGroundTruth& gt, const LocalLossContext& context,
                         const DfineLossSettings& settings);

}  // namespace libreyolo::dfine
