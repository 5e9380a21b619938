#pragma once
// Quality focal loss (Li et al., "Generalized Focal Loss", 2020), sigmoid form, as RTMDet trains
// its classifier: the logit of a positive's class learns to predict the IoU of that prior's box
// with its ground truth (a localisation-quality score), every other (prior, class) pair learns 0,
// and each term is down-weighted by how close the prediction already is.

#include <torch/types.h>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk::losses {

// logits [..., C]; labels [...] integer: the assigned class of each prior, any value outside
// [0, C) (RTMDet uses C) meaning background; scores [...] float: the soft target of that class
// (the IoU with the assigned ground truth; ignored for background). With the soft target
// t = score on the labelled class and 0 elsewhere, per (prior, class):
//   BCE-with-logits(x, t) * |t - sigmoid(x)|^beta
// summed over the classes: returns [...] float32, unreduced (the caller weights and normalises).
// Computed in float32 whatever the input dtype; differentiable in logits.
LIBREYOLO_SDK_API torch::Tensor quality_focal_loss(const torch::Tensor& logits, const torch::Tensor& labels,
                                                   const torch::Tensor& scores, double beta = 2.0);

}  // namespace libreyolo::sdk::losses
