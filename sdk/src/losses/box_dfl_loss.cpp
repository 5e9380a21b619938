// box_dfl_loss: YOLOv9's box losses as composed PyTorch ops, and the choice of the fused kernels
// (box_dfl_loss_fused.hpp) under the fused_kernels policy.
#include "libreyolo/sdk/losses/box_dfl_loss.hpp"

#include <torch/torch.h>

#include <mutex>

#include "../fused_choice_log.hpp"
#include "box_dfl_loss_fused.hpp"
#include "fused_input_checks.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/losses/box_ops.hpp"
#include "libreyolo/sdk/losses/dfl.hpp"

namespace libreyolo::sdk::losses {
namespace {

// The policy and the inputs decide; the first decision is logged once.
bool fused_chosen(const BoxDflInputs& in) {
  if (!fused_kernel_allowed("box_dfl_loss")) return false;
  const auto refusal = box_dfl_loss_refusal(in);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: YOLOv9's box losses run the fused CUDA kernels",
                         "fused_kernels: YOLOv9's box losses run PyTorch's ops");
  return refusal.empty();
}

// The criterion's expressions as they were written before the kernels: the same ops, the same bits.
BoxDflSums composed(const BoxDflInputs& in) {
  const auto ciou = box_iou(in.pred_boxes, in.target_boxes, IoUKind::ciou);
  const auto target_distance = bbox_to_distance(in.points, in.target_boxes, in.max_distance);
  return {((1.0 - ciou) * in.weight).sum(), (dfl_loss(in.logits, target_distance).mean(2) * in.weight).sum()};
}

std::string shape_refusal(const BoxDflInputs& in) {
  if (in.logits.dim() != 4 || in.logits.size(2) != 4) return "the logits are not [B, A, 4, reg_max]";
  const int64_t batch = in.logits.size(0), anchors = in.logits.size(1), bins = in.logits.size(3);
  if (batch == 0 || anchors == 0) return "there are no anchors";
  if (bins < 2 || bins > box_dfl_most_bins()) return "reg_max is outside the kernels' 2 .. 32";
  if (!same_shape(in.points, {anchors, 2})) return "the points are not [A, 2]";
  if (!same_shape(in.target_boxes, {batch, anchors, 4})) return "the target boxes are not [B, A, 4]";
  if (!same_shape(in.weight, {batch, anchors})) return "the weights are not [B, A]";
  return "";
}

}  // namespace

std::string box_dfl_loss_refusal(const BoxDflInputs& in) {
  if (auto unavailable = fused_box_dfl_loss_unavailable(); !unavailable.empty()) return unavailable;
  if (!all_on_one_cuda_device({&in.logits, &in.points, &in.target_boxes, &in.weight}))
    return "the inputs are not all on one CUDA device";
  if (!all_float32({&in.logits, &in.points, &in.target_boxes, &in.weight})) return "the inputs are not all float32";
  return shape_refusal(in);
}

BoxDflSums box_dfl_loss(const BoxDflInputs& in) {
  if (fused_chosen(in)) return fused_box_dfl_loss(in);
  return composed(in);
}

}  // namespace libreyolo::sdk::losses
