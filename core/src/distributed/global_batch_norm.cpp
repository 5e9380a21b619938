#include "global_batch_norm.hpp"

#include "native_sync_batch_norm.hpp"

#include <torch/torch.h>

#include <string>
#include <utility>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::distributed {

torch::Tensor all_reduce_sum_differentiable(const torch::Tensor& local,
                                            const std::shared_ptr<Collectives>& collectives) {
  auto total = local.detach().clone(at::MemoryFormat::Contiguous);
  collectives->all_reduce_sum(total);
  if (!local.requires_grad()) return total;
  // `local - local.detach()` is exactly zero with an identity gradient, so `joined` holds the
  // summed values bit for bit and passes its gradient straight to `local`; the hook sums that
  // gradient over ranks on its way. A hook rather than a custom autograd::Function: the hook
  // can own the collectives, a Function's context can only keep IValues.
  auto joined = total + (local - local.detach());
  joined.register_hook([collectives](const torch::Tensor& grad) {
    auto summed = grad.clone(at::MemoryFormat::Contiguous);
    collectives->all_reduce_sum(summed);
    return summed;
  });
  return joined;
}

GlobalBatchNorm::GlobalBatchNorm(std::shared_ptr<Collectives> collectives)
    : collectives_(std::move(collectives)) {}

namespace {

void check_input(const torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input) {
  const auto channels = layer.options.num_features();
  if (input.dim() != 4 || input.size(1) != channels) {
    throw Error("synchronized BatchNorm2d(" + std::to_string(channels) + ") got an input of shape " +
                    c10::str(input.sizes()),
                "BatchNorm2d normalises [N, C, H, W] batches with C equal to its num_features",
                "check the layer that feeds it in the family's network");
  }
}

// [C] -> [1, C, 1, 1], to broadcast over a batch.
torch::Tensor per_channel(const torch::Tensor& values) { return values.view({1, -1, 1, 1}); }

// running = (1 - factor) * running + factor * batch, LibTorch's momentum convention. `factor`
// is a double (momentum) or a 0-dim tensor (1 / batches seen: the cumulative average), so
// neither form reads the device.
template <class Factor>
void blend(torch::Tensor& running, const torch::Tensor& batch, const Factor& factor) {
  running.mul_(1 - factor).add_(batch.to(running.scalar_type()) * factor);
}

}  // namespace

torch::Tensor GlobalBatchNorm::forward(torch::nn::BatchNorm2dImpl& layer, const torch::Tensor& input) {
  check_input(layer, input);
  const auto& options = layer.options;
  const int64_t channels = options.num_features();
  const int64_t local_count = input.numel() / channels;
  if (local_count < 2 && collectives_->world_size() == 1) {
    throw Error("BatchNorm2d(" + std::to_string(channels) + ") got one value per channel in training",
                "the batch variance of a single value is undefined",
                "train with a batch of more than one image or a larger feature map");
  }

  // On CUDA, PyTorch's synchronized-BatchNorm kernels (native_sync_batch_norm.hpp); the composed
  // float32 operators below elsewhere (their CPU path, and the layers those kernels do not cover).
  if (native_sync_batch_norm_applies(layer, input)) return native_sync_batch_norm(layer, input, collectives_);

  const auto dtype = at::promote_types(input.scalar_type(), torch::kFloat);
  const auto x = input.to(dtype);  // keeps the memory format: channels-last stays so
  const bool tracking = options.track_running_stats() && layer.running_mean.defined();
  const auto shift = tracking ? layer.running_mean.detach().to(x.options(), false, /*copy=*/true)
                              : torch::zeros({channels}, x.options());

  const auto centred = x - per_channel(shift);
  const std::vector<int64_t> reduce{0, 2, 3};
  auto sums = torch::cat({centred.sum(reduce), centred.square().sum(reduce),
                          torch::full({1}, static_cast<double>(local_count), x.options())});
  sums = all_reduce_sum_differentiable(sums, collectives_);
  const auto count = sums.narrow(0, 2 * channels, 1);
  const auto mean_offset = sums.narrow(0, 0, channels) / count;
  const auto variance = (sums.narrow(0, channels, channels) / count - mean_offset.square()).clamp_min(0);

  auto scale = torch::rsqrt(variance + options.eps());
  if (options.affine()) scale = scale * layer.weight.to(dtype);
  auto y = (centred - per_channel(mean_offset)) * per_channel(scale);
  if (options.affine()) y = y + per_channel(layer.bias.to(dtype));

  if (tracking && layer.num_batches_tracked.defined()) {
    torch::NoGradGuard no_grad;
    layer.num_batches_tracked.add_(1);
    const auto mean = shift + mean_offset.detach();
    // The running variance is unbiased, n / (n - 1); clamp keeps n = 1 (a shard of one value
    // on a one-rank world cannot get here) from writing inf.
    const auto unbiased = variance.detach() * count / (count - 1).clamp_min(1);
    if (options.momentum().has_value()) {
      const double momentum = *options.momentum();
      blend(layer.running_mean, mean, momentum);
      blend(layer.running_var, unbiased, momentum);
    } else {
      const auto factor = 1.0 / layer.num_batches_tracked.to(dtype);
      blend(layer.running_mean, mean, factor);
      blend(layer.running_var, unbiased, factor);
    }
  }
  return y.to(input.scalar_type()).contiguous(input.suggest_memory_format());
}

}  // namespace libreyolo::core::distributed
