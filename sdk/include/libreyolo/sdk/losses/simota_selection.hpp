#pragma once
// SimOTA's last two stages (YOLOX's label assignment), after simota_cost.hpp's cost and the
// dynamic k: each gt row takes its k cheapest anchors (k = dynamic_k of the row; a selection of
// infinite cost is dropped), and an anchor taken by several rows keeps the row of lowest cost
// over all the image's rows. Composed (PyTorch ops) unless the fused_kernels policy allows the
// SDK's CUDA kernels `simota_selection` (docs/fused-kernels.md), written to give the same answers.

#include <torch/types.h>

#include <string>

#include "libreyolo/sdk/export.hpp"
#include "libreyolo/sdk/losses/simota_cost.hpp"

namespace libreyolo::sdk::losses {

struct SimOtaSelection {
  torch::Tensor foreground;  // [B, A] bool
  torch::Tensor gt_index;    // [B, A] int64: the assigned row (0 for background)
  torch::Tensor iou;         // [B, A] float32: the IoU with the assigned row (0 for background)
};

// cost: simota_cost's outputs ([B, M, A] iou and cost); dynamic_k [B, M] int64, each in
// [0, topk]; topk: how many of each row's cheapest anchors are looked at (at most A).
LIBREYOLO_SDK_API SimOtaSelection simota_selection(const SimOtaCost& cost, const torch::Tensor& dynamic_k,
                                                   int64_t topk);

// The composed ops alone, whatever the policy (the reference the fused kernels are tested against).
LIBREYOLO_SDK_API SimOtaSelection simota_selection_composed(const SimOtaCost& cost, const torch::Tensor& dynamic_k,
                                                            int64_t topk);

// Why the fused kernels would not take these inputs, whatever the policy ("" when they would).
LIBREYOLO_SDK_API std::string simota_selection_refusal(const SimOtaCost& cost, const torch::Tensor& dynamic_k,
                                                       int64_t topk);

}  // namespace libreyolo::sdk::losses
