#include "native_sync_batch_norm.hpp"

#include <ATen/core/ivalue.h>

#include <tuple>
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
    auto done = native_sync_forward(input, weight, bias, std::move(running_mean), std::move(running_var), momentum, eps,
                                    *collectives);
    ctx->save_for_backward({done.input, weight, done.mean, done.invstd, done.counts});
    ctx->saved_data["collectives"] = c10::IValue::make_capsule(c10::make_intrusive<CollectivesCapsule>(std::move(collectives)));
    return done.output;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    NativeSyncForward forward;
    forward.input = saved[0];
    forward.mean = saved[2];
    forward.invstd = saved[3];
    forward.counts = saved[4];
    const NeededGradients needed{ctx->needs_input_grad(0), ctx->needs_input_grad(1), ctx->needs_input_grad(2)};
    auto grads = native_sync_backward(grad_outputs[0], forward, saved[1], needed, collectives_of(ctx));
    return {grads.input, grads.weight, grads.bias, torch::Tensor(), torch::Tensor(),
            torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool native_sync_batch_norm_applies(const torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input) {
  const auto& options = layer.options;
  return input.is_cuda() && options.affine() && options.track_running_stats() && options.momentum().has_value() &&
         layer.running_mean.defined() && layer.num_batches_tracked.defined();
}

NativeSyncForward native_sync_forward(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                                      torch::Tensor running_mean, torch::Tensor running_var, double momentum,
                                      double eps, Collectives& collectives) {
  NativeSyncForward done;
  done.input = input.contiguous(input.suggest_memory_format());
  const auto& x = done.input;
  const auto channels = x.size(1);
  const auto [mean, invstd] = at::batch_norm_stats(x, eps);
  const auto rows = gather_statistics(collectives, mean, invstd, static_cast<double>(x.numel() / channels));
  const auto counts = rows.select(1, 2 * channels).contiguous();
  std::tie(done.mean, done.invstd) = at::batch_norm_gather_stats_with_counts(
      x, rows.narrow(1, 0, channels).contiguous(), rows.narrow(1, channels, channels).contiguous(), running_mean,
      running_var, momentum, eps, counts);
  done.counts = counts.to(torch::kInt);
  done.output = at::batch_norm_elemt(x, weight, bias, done.mean, done.invstd, eps);
  return done;
}

NativeSyncGradients native_sync_backward(const torch::Tensor& grad_output, const NativeSyncForward& forward,
                                         const torch::Tensor& weight, NeededGradients needed,
                                         Collectives& collectives) {
  const auto& x = forward.input;
  const auto dy = grad_output.contiguous(x.suggest_memory_format());
  auto [sum_dy, sum_dy_xmu, grad_weight, grad_bias] = at::batch_norm_backward_reduce(
      dy, x, forward.mean, forward.invstd, weight, needed.input, needed.weight, needed.bias);
  NativeSyncGradients grads;
  if (needed.weight) grads.weight = grad_weight;
  if (needed.bias) grads.bias = grad_bias;
  if (needed.input) {
    auto sums = torch::cat({sum_dy, sum_dy_xmu});  // the global sums: every rank's loss
    collectives.all_reduce_sum(sums);
    const auto channels = sum_dy.size(0);
    grads.input = at::batch_norm_backward_elemt(dy, x, forward.mean, forward.invstd, weight, sums.narrow(0, 0, channels),
                                                sums.narrow(0, channels, channels), forward.counts);
  }
  return grads;
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
