#include "libreyolo/core/checkpoint/finite_weights.hpp"

#include <ATen/ATen.h>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::checkpoint {
namespace {

void check(const StateDict& weights, const std::string& which, const std::string& source) {
  for (const auto& item : weights) {
    const auto& tensor = item.value();
    if (!tensor.defined() || !tensor.is_floating_point() || tensor.numel() == 0) continue;
    if (at::isfinite(tensor).all().item<bool>()) continue;
    const auto bad = (~at::isfinite(tensor)).sum().item<std::int64_t>();
    throw Error("Cannot use checkpoint " + source,
                which + " tensor '" + item.key() + "' holds " + std::to_string(bad) + " of " +
                    std::to_string(tensor.numel()) + " values that are NaN or infinite (a diverged run, or a damaged file)",
                "Use an earlier checkpoint of the run (weights/best.pt, weights/epochN.pt), or retrain with a lower lr0");
  }
}

}  // namespace

void refuse_non_finite(const Checkpoint& checkpoint, const std::string& source) {
  check(checkpoint.model, "the model's", source);
  if (!checkpoint.train) return;
  check(checkpoint.train->train_model, "the training weights'", source);
  if (checkpoint.train->ema) check(checkpoint.train->ema->weights, "the EMA weights'", source);
}

}  // namespace libreyolo::core::checkpoint
