#include "whole_step.hpp"

#include <torch/torch.h>

#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::core::trainer {
namespace {

// Key layout: batch, channels, height, width, target capacity, window size, window end.
constexpr std::size_t kCapacityIndex = 4;

// The key's inputs: the shared buffers of its shapes, made on first use.
StepInputs& inputs_for(const Session& s, StepBuffers& buffers, const capture::Shape& key, const torch::Tensor& images,
                       const data::Batch& batch) {
  if (const auto found = buffers.by_key.find(key); found != buffers.by_key.end()) return found->second;
  StepInputs in;
  auto& shared_images = buffers.images[capture::Shape(key.begin(), key.begin() + kCapacityIndex)];
  if (!shared_images.defined()) shared_images = images.clone();  // keeps the channels-last strides
  in.images = shared_images;
  auto& targets = buffers.targets[{key[0], key[kCapacityIndex]}];
  if (!targets.first.defined()) {
    targets.first = torch::zeros({batch.targets.size(0), key[kCapacityIndex], batch.targets.size(2)},
                                 batch.targets.options());
    targets.second = batch.counts.clone();
  }
  in.boxes = targets.first;
  in.counts = targets.second;
  if (!buffers.losses.defined()) {
    const auto components = static_cast<std::int64_t>(s.criterion->component_names().size());
    buffers.losses = torch::zeros({components}, torch::TensorOptions().dtype(torch::kFloat32).device(s.device));
  }
  in.losses = buffers.losses;
  return buffers.by_key.emplace(key, std::move(in)).first->second;
}

void fill_inputs(StepInputs& in, const torch::Tensor& images, const data::Batch& batch) {
  in.images.copy_(images);
  in.boxes.zero_();
  in.boxes.narrow(1, 0, batch.targets.size(1)).copy_(batch.targets);
  in.counts.copy_(batch.counts);
}

// Whether every step starts with no gradients (runs without accumulation): backward then hands
// its gradient tensors to .grad instead of adding them into zeroed ones, which saves an addition
// kernel per parameter (about 700 in YOLOv9-t), as PyTorch's whole-network capture does. A
// recorded step's gradients then live in the step graphs' pool: each replay writes them before
// its optimizer reads them, and nothing else reads them between replays. With accumulation the
// gradients must outlive a step, so they are zeroed in place and added into instead.
bool fresh_gradients(const Session& s) { return s.accumulate == 1; }

amp::OptimizerStepParts optimizer_step_parts(const Session& s) {
  return {s.optimizer.get(), s.scaler.get(), s.weight_copies.get(), s.ema.get(), s.model.get()};
}

// The step a graph records: everything reads and writes tensors that outlive it (`in`, the
// parameters and their .grad, the optimizer, scaler and EMA state). The loss components are
// copied into in.losses rather than returned: a recording runs this code without computing
// anything, so a tensor it returned would hold nothing, while the copy into in.losses leaves the
// warm-up's values there until the first replay overwrites them.
void step_from_inputs(Session& s, StepInputs& in, const optim::AccumulationWindow& window, bool fresh) {
  if (fresh) s.optimizer->zero_grad(/*set_to_none=*/true);  // host only: no kernel
  const sdk::Targets targets{in.boxes, in.counts, {}};      // no host counts: a recorded step cannot follow them
  const bool fused_end = s.fused_optimizer_step && window.ends_window;
  in.losses.copy_(forward_loss_backward(s, in.images, targets, window.window_size, /*pass_copy_gradients=*/!fused_end));
  if (!window.ends_window) return;
  mark_phase(s, profiler::StepPhase::optimizer);
  if (!fused_end || !finish_with_fused_step(s)) finish_window_on_device(s);
  if (!fresh) s.optimizer->zero_grad(/*set_to_none=*/false);  // in place: the next graph adds into them
}

}  // namespace

bool finish_with_fused_step(Session& s) {
  if (!s.skip_streak.defined()) s.skip_streak = torch::zeros_like(s.scaler->found_inf());
  std::string why;
  if (s.fused_optimizer_step->run(s.skip_streak, why)) return true;
  if (!s.fused_optimizer_step_refused) {
    log::info("fused_kernels: this step's optimizer update is composed (", why, ")");
    s.fused_optimizer_step_refused = true;
  }
  if (s.weight_copies) s.weight_copies->pass_gradients();
  return false;
}

capture::Shape whole_step_key(const data::Batch& batch, const optim::AccumulationWindow& window) {
  const auto& images = batch.images;  // [B, H, W, 3]
  return {images.size(0), images.size(3), images.size(1), images.size(2), capture::target_capacity(batch.targets.size(1)),
          window.window_size, window.ends_window ? 1 : 0};
}

std::string whole_step_refusal(const Session& s) {
  if (s.family->policy.capture != sdk::CaptureRegion::step) return "";
  if (s.config.multi_scale) return "multi_scale=true gives batches of several sizes";
  if (!s.scaler->enabled()) return "it is recorded with the float16 gradient scaler only (amp=true in float16)";
  if (!s.optimizer->has_device_lr()) return "the optimizer cannot read its learning rate from the device";
  return "";
}

void prepare_device_step_state(Session& s) {
  if (s.family->policy.capture != sdk::CaptureRegion::step || !s.device.is_cuda() || !s.scaler->enabled()) return;
  if (!s.optimizer->use_device_lr()) return;
  // Without its device decay the EMA cannot be recorded: the lr goes back to the host then, and
  // whole_step_refusal says why.
  if (s.ema && !s.ema->use_device_decay()) s.optimizer->drop_device_lr();
}

void prepare_weight_copies(Session& s) {
  if (!sdk::fused_kernel_allowed("weight_casts") || !s.precision.autocast || !s.device.is_cuda()) return;
  // The network-region graph adds the gradients into the parameters' .grad itself, and
  // distributed training averages them as autograd makes them: both need autograd's own casts.
  std::string refusal;
  if (!s.capture->whole_step()) refusal = "only the whole-step graph (a family with capture region `step`, cuda_graph=true) uses them";
  if (s.gradient_sync) refusal = "distributed training averages the gradients as autograd makes them";
  if (!refusal.empty()) {
    log::info("fused_kernels: the convolution weights are cast per layer (", refusal, ")");
    return;
  }
  auto copies = std::make_unique<amp::WeightCopies>(*s.model, s.precision.dtype);
  if (copies->layers() == 0) return;
  log::info("fused_kernels: ", copies->layers(), " convolutions read ", s.precision.dtype == torch::kBFloat16 ? "bfloat16" : "float16",
            " copies of their weights, refreshed in one launch per optimizer step");
  s.weight_copies = std::move(copies);
}

void prepare_weight_gradient_stream(Session& s) {
  if (!sdk::fused_kernel_allowed("weight_grad_stream") || !s.precision.autocast || !s.device.is_cuda()) return;
  std::string refusal = "it needs the weight copies of fused_kernels=weight_casts, and this run has none";
  if (s.weight_copies) s.weight_grad_stream = amp::WeightGradientStream::start(*s.weight_copies, s.device.index(), refusal);
  if (!s.weight_grad_stream) log::info("fused_kernels: the convolutions' weight gradients stay on the backward's stream (", refusal, ")");
}

namespace {

// Why this session's steps cannot end in the fused optimizer step ("" when they can).
std::string fused_optimizer_step_refusal(const Session& s) {
  // Eager steps (train_step's eager path, no weight copies there) where fused_kernels allows
  // eager_optimizer_step, as `measured` does (docs/fused-kernels.md, "Optimizer step").
  if (!s.capture->whole_step() && !sdk::fused_kernel_allowed("eager_optimizer_step")) {
    return "fused_kernels does not name eager_optimizer_step, so only the whole-step graph (a family with capture "
           "region `step`, cuda_graph=true) uses it";
  }
  if (!fresh_gradients(s)) return "gradient accumulation keeps the gradients across steps";
  if (s.config.clip_grad > 0) return "clip_grad reads the unscaled gradients before the update";
  if (s.gradient_sync) return "distributed training averages the gradients first";
  return amp::FusedOptimizerStep::refusal(optimizer_step_parts(s));
}

}  // namespace

void prepare_fused_optimizer_step(Session& s) {
  if (!sdk::fused_kernel_allowed("optimizer_step") || !s.device.is_cuda()) return;
  if (const auto refusal = fused_optimizer_step_refusal(s); !refusal.empty()) {
    log::info("fused_kernels: the optimizer step stays composed (", refusal, ")");
    return;
  }
  auto step = std::make_unique<amp::FusedOptimizerStep>(optimizer_step_parts(s));
  if (!step->unusable().empty()) {
    log::info("fused_kernels: the optimizer step stays composed (", step->unusable(), ")");
    return;
  }
  log::info("fused_kernels: the optimizer step (unscale and inf check, SGD, weight copies, EMA, scale update) runs as "
            "three kernels (check, update, finish), SGD rounded as this LibTorch's (", step->rounding(), ")");
  s.fused_optimizer_step = std::move(step);
}

void report_weight_gradient_stream(Session& s) {
  if (!s.weight_grad_stream || s.weight_grad_stream_reported) return;
  s.weight_grad_stream_reported = true;
  log::info("fused_kernels: ", s.weight_grad_stream->routed_last_backward(),
            " convolutions computed their weight gradients on a second stream, beside the backward");
}

std::optional<torch::Tensor> whole_step(Session& s, const data::Batch& batch, const optim::AccumulationWindow& window) {
  if (!s.capture->whole_step() || s.multi_scale) return std::nullopt;
  if (!s.step_buffers) s.step_buffers = std::make_shared<StepBuffers>();
  const bool fresh = fresh_gradients(s);
  if (!fresh && window.starts_window && !s.gradients_clear) clear_gradients(s);
  mark_phase(s, profiler::StepPhase::h2d);
  const auto images = data::to_network_input(batch.images, s.family->info.input);
  const auto key = whole_step_key(batch, window);
  StepInputs& in = inputs_for(s, *s.step_buffers, key, images, batch);
  fill_inputs(in, images, batch);
  if (window.ends_window && s.ema) s.ema->advance();  // the host half of the EMA's move
  if (s.weight_copies) s.weight_copies->refresh_if_stale();  // a replay could not notice
  mark_phase(s, profiler::StepPhase::forward);      // a replay's whole time
  s.capture->run_step(key, [&s, &in, window, fresh] { step_from_inputs(s, in, window, fresh); },
                      [&s] { s.scaler->forget_unscale(); });
  mark_phase(s, profiler::StepPhase::other);
  s.gradients_clear = !fresh && window.ends_window;  // fresh: the gradients hold the last step's
  if (window.ends_window) after_window(s);
  return in.losses.clone();
}

}  // namespace libreyolo::core::trainer
