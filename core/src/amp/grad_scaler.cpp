#include "libreyolo/core/amp/grad_scaler.hpp"

#include <torch/torch.h>

#include <map>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/grad_utils.hpp"
#include "libreyolo/core/optim/optimizer.hpp"

namespace libreyolo::core::amp {

namespace {

// at::_amp_foreach_non_finite_check_and_unscale_ / at::_amp_update_scale_ have CUDA kernels in
// every LibTorch we build against, CPU kernels only in recent ones. Off CUDA (CI, CPU tests)
// the same arithmetic runs as ordinary tensor ops.
bool has_amp_kernels(const torch::Device& device) { return device.is_cuda(); }

void unscale_fallback(std::vector<torch::Tensor>& grads, torch::Tensor& found_inf,
                      const torch::Tensor& inv_scale) {
  for (auto& g : grads) {
    // Checked before scaling, as the CUDA kernel does.
    found_inf.copy_(at::maximum(found_inf, at::logical_not(at::isfinite(g)).any().to(found_inf)));
    g.mul_(inv_scale.to(g.scalar_type()));
  }
}

void update_scale_fallback(torch::Tensor& scale, torch::Tensor& growth_tracker,
                           const torch::Tensor& found_inf, const GradScalerOptions& o) {
  // CPU tensors only: reading them costs no device synchronisation.
  if (found_inf.item<float>() != 0.f) {
    scale.mul_(o.backoff_factor);
    growth_tracker.zero_();
    return;
  }
  const int64_t successful = growth_tracker.item<int64_t>() + 1;
  if (successful == o.growth_interval) {
    const auto grown = static_cast<float>(scale.item<float>() * o.growth_factor);
    if (std::isfinite(grown)) scale.fill_(grown);
    growth_tracker.zero_();
  } else {
    growth_tracker.fill_(successful);
  }
}

}  // namespace

GradScaler::GradScaler(torch::Device device, GradScalerOptions options) : options_(options) {
  if (!options_.enabled) return;
  if (!(options_.init_scale > 0) || !(options_.growth_factor > 1) ||
      !(options_.backoff_factor > 0 && options_.backoff_factor < 1) ||
      options_.growth_interval <= 0) {
    throw Error("Invalid gradient scaler settings",
                "need init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1 and "
                "growth_interval > 0",
                "keep the defaults (65536, 2, 0.5, 2000) unless you know why not");
  }
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  scale_ = torch::full({}, options_.init_scale, f32);
  growth_tracker_ = torch::zeros({}, f32.dtype(torch::kInt32));
  found_inf_ = torch::zeros({}, f32);
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) const {
  if (!enabled()) return loss;
  return loss * scale_;
}

void GradScaler::unscale(optim::Optimizer& optimizer) {
  if (!enabled()) return;
  if (unscaled_) {
    throw Error("Gradients were unscaled twice in one step",
                "unscale() already ran since the last update()",
                "call unscale() at most once between update() calls (step() calls it when "
                "needed)");
  }
  torch::NoGradGuard no_grad;
  // Reciprocal in double, as torch does, so the scale's powers of two stay exact.
  const auto inv_scale = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
  std::map<torch::ScalarType, std::vector<torch::Tensor>> by_dtype;  // the kernel wants one dtype
  for (auto& g : optim::gradients(optimizer.parameters())) by_dtype[g.scalar_type()].push_back(g);
  for (auto& [dtype, grads] : by_dtype) {
    if (has_amp_kernels(found_inf_.device())) {
      at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
    } else {
      unscale_fallback(grads, found_inf_, inv_scale);
    }
  }
  unscaled_ = true;
}

bool GradScaler::step(optim::Optimizer& optimizer) {
  if (!enabled()) {
    optimizer.step();
    return true;
  }
  if (!unscaled_) unscale(optimizer);
  const bool overflow = found_inf_.item<float>() != 0.f;  // the one host read per step
  if (!overflow) optimizer.step();
  return !overflow;
}

bool GradScaler::step_on_device(optim::Optimizer& optimizer) {
  if (!enabled()) return false;
  if (!unscaled_) unscale(optimizer);
  return optimizer.step_unless_found_inf(found_inf_);
}

void GradScaler::update() {
  if (!enabled()) return;
  if (!unscaled_) {
    throw Error("Cannot update the gradient scale", "no gradients were unscaled since the "
                "last update, so there is no inf/NaN check to act on",
                "call step() (or unscale()) before update() in every optimizer step");
  }
  torch::NoGradGuard no_grad;
  if (has_amp_kernels(scale_.device())) {
    at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, options_.growth_factor,
                           options_.backoff_factor, options_.growth_interval);
  } else {
    update_scale_fallback(scale_, growth_tracker_, found_inf_, options_);
  }
  found_inf_.zero_();
  unscaled_ = false;
}

double GradScaler::current_scale() const { return enabled() ? scale_.item<double>() : 1.0; }

GradScalerState GradScaler::state() const {
  if (!enabled()) return {options_.init_scale, 0};
  return {scale_.item<double>(), growth_tracker_.item<int64_t>()};
}

void GradScaler::load_state(const GradScalerState& state) {
  if (!enabled()) return;
  scale_.fill_(state.scale);
  growth_tracker_.fill_(state.growth_tracker);
}

}  // namespace libreyolo::core::amp
