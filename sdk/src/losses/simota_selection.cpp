// simota_selection: SimOTA's k cheapest anchors per row and the conflicts as composed PyTorch
// ops, and the choice of the fused kernels (simota_selection_fused.hpp) under the fused_kernels
// policy.
#include "libreyolo/sdk/losses/simota_selection.hpp"

#include <torch/torch.h>

#include <mutex>

#include "../fused_choice_log.hpp"
#include "fused_input_checks.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "simota_selection_fused.hpp"

namespace libreyolo::sdk::losses {
namespace {

bool fused_chosen(const SimOtaCost& cost, const torch::Tensor& dynamic_k, int64_t topk) {
  if (!fused_kernel_allowed("simota_selection")) return false;
  const auto refusal = simota_selection_refusal(cost, dynamic_k, topk);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: SimOTA's selection runs the fused CUDA kernels",
                         "fused_kernels: SimOTA's selection runs PyTorch's ops");
  return refusal.empty();
}

}  // namespace

SimOtaSelection simota_selection_composed(const SimOtaCost& cost, const torch::Tensor& dynamic_k, int64_t topk) {
  torch::NoGradGuard no_grad;
  const auto options_f = cost.cost.options();
  // Each row's k cheapest anchors (k <= topk because IoUs are at most 1); a selection of infinite
  // cost (an image whose rows have no candidate at all) is dropped.
  const auto [lowest_cost, lowest_index] = cost.cost.topk(topk, 2, /*largest=*/false, /*sorted=*/true);
  const auto rank = torch::arange(topk, dynamic_k.options()).reshape({1, 1, topk});
  const auto take = torch::logical_and(rank < dynamic_k.unsqueeze(2), torch::isfinite(lowest_cost));
  const auto matching = torch::zeros_like(cost.cost).scatter_(2, lowest_index, take.to(options_f));
  // Conflicts: the lowest-cost row wins. argmax takes the first maximum, so an anchor taken by one
  // row gets that row and an anchor taken by none row 0, with no one-hot of the winners.
  const auto takers = matching.sum(1);  // [B, A]
  const auto foreground = takers > 0;
  const auto gt_index = torch::where(takers > 1, cost.cost.argmin(1), matching.argmax(1));
  const auto iou =
      torch::where(foreground, cost.iou.gather(1, gt_index.unsqueeze(1)).squeeze(1), torch::zeros({}, options_f));
  return {foreground, gt_index, iou};
}

std::string simota_selection_refusal(const SimOtaCost& cost, const torch::Tensor& dynamic_k, int64_t topk) {
  if (auto unavailable = fused_simota_selection_unavailable(); !unavailable.empty()) return unavailable;
  if (!all_on_one_cuda_device({&cost.cost, &cost.iou, &dynamic_k})) return "the inputs are not all on one CUDA device";
  if (!all_float32({&cost.cost, &cost.iou})) return "the costs and IoUs are not float32";
  if (dynamic_k.scalar_type() != torch::kLong) return "dynamic_k must be int64";
  if (cost.cost.dim() != 3) return "the costs must be [B, M, A]";
  const auto sizes = cost.cost.sizes();
  if (cost.iou.sizes() != sizes || !same_shape(dynamic_k, {sizes[0], sizes[1]}))
    return "the shapes do not match [B, M, A], [B, M, A], [B, M]";
  if (topk < 1 || topk > sizes[2]) return "topk must be in [1, A]";
  return "";
}

SimOtaSelection simota_selection(const SimOtaCost& cost, const torch::Tensor& dynamic_k, int64_t topk) {
  if (fused_chosen(cost, dynamic_k, topk)) return fused_simota_selection(cost, dynamic_k, topk);
  return simota_selection_composed(cost, dynamic_k, topk);
}

}  // namespace libreyolo::sdk::losses
