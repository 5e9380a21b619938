#include "native_sync_batch_norm.hpp"

#include <ATen/core/ivalue.h>

#include <utility>

namespace libreyolo::core::distributed {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The collectives, as the autograd context can keep them (it keeps IValues only).
struct CollectivesCapsule : torch::CustomClassHolder {
  explicit CollectivesCapsule(std::shared_ptr<Collectives> c) : collectives(std::move(c)) {}
  std::shared_ptr<Collectives> collectives;
};

Collectives& collectives_of(AutogradContext* ctx) {
  auto held = ctx->saved_data["collectives"].toCapsule();
  return *c10::static_intrusive_pointer_cast<CollectivesCapsule>(held)->collectives;
}

// Every rank's [mean (C), 1/std (C), count (1)] as rows of one [world, 2C + 1] matrix.
torch::Tensor gather_statistics(Collectives& collectives, const torch::Tensor& mean, const torch::Tensor& invstd,
                                double count) {
  const auto channels = mean.size(0);
  auto rows = torch::zeros({collectives.world_size(), 2 * channels + 1}, mean.options());
  auto own = rows[collectives.rank()];
  own.narrow(0, 0, channels).copy_(mean);
  own.narrow(0, channels, channels).copy_(invstd);
  own.narrow(0, 2 * channels, 1).fill_(count);
  collectives.all_reduce_sum(rows);
  return rows;
}

struct SyncBatchNormFunction : torch::autograd::Function<SyncBatchNormFunction> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input, const torch::Tensor& weight,
                               const torch::Tensor& bias, torch::Tensor running_mean, torch::Tensor running_var,
                               double momentum, double eps, std::shared_ptr<Collectives> collectives) {
    const auto x = input.contiguous(input.suggest_memory_format());
    const auto channels = x.size(1);
    const auto [mean, invstd] = at::batch_norm_stats(x, eps);
    const auto rows = gather_statistics(*collectives, mean, invstd, static_cast<double>(x.numel() / channels));
    const auto counts = rows.select(1, 2 * channels).contiguous();
    const auto [global_mean, global_invstd] = at::batch_norm_gather_stats_with_counts(
        x, rows.narrow(1, 0, channels).contiguous(), rows.narrow(1, channels, channels).contiguous(), running_mean,
        running_var, momentum, eps, counts);
    ctx->save_for_backward({x, weight, global_mean, global_invstd, counts.to(torch::kInt)});
    ctx->saved_data["collectives"] = c10::IValue::make_capsule(c10::make_intrusive<CollectivesCapsule>(std::move(collectives)));
    return at::batch_norm_elemt(x, weight, bias, global_mean, global_invstd, eps);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& weight = saved[1];
    const auto& mean = saved[2];
    const auto& invstd = saved[3];
    const auto& counts = saved[4];
    const auto dy = grad_outputs[0].contiguous(x.suggest_memory_format());
    const bool input_g = ctx->needs_input_grad(0), weight_g = ctx->needs_input_grad(1), bias_g = ctx->needs_input_grad(2);
    auto [sum_dy, sum_dy_xmu, grad_weight, grad_bias] =
        at::batch_norm_backward_reduce(dy, x, mean, invstd, weight, input_g, weight_g, bias_g);
    torch::Tensor grad_input;
    if (input_g) {
      auto sums = torch::cat({sum_dy, sum_dy_xmu});  // the global sums: every rank's loss
      collectives_of(ctx).all_reduce_sum(sums);
      const auto channels = sum_dy.size(0);
      grad_input = at::batch_norm_backward_elemt(dy, x, mean, invstd, weight, sums.narrow(0, 0, channels),
                                                 sums.narrow(0, channels, channels), counts);
    }
    return {grad_input, weight_g ? grad_weight : torch::Tensor(), bias_g ? grad_bias : torch::Tensor(),
            torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool native_sync_batch_norm_applies(const torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input) {
  const auto& options = layer.options;
  return input.is_cuda() && options.affine() && options.track_running_stats() && options.momentum().has_value() &&
         layer.running_mean.defined() && layer.num_batches_tracked.defined();
}

torch::Tensor native_sync_batch_norm(torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input,
                                     const std::shared_ptr<Collectives>& collectives) {
  {
    torch::NoGradGuard no_grad;
    layer.num_batches_tracked.add_(1);
  }
  return SyncBatchNormFunction::apply(input, layer.weight, layer.bias, layer.running_mean, layer.running_var,
                                      *layer.options.momentum(), layer.options.eps(), collectives);
}

}  // namespace libreyolo::core::distributed
