// One training step (train_step) and its parts: forward, loss and backward; the end of an
// accumulation window on the device; the host's bookkeeping after it. whole_step.cpp runs the
// same parts inside a CUDA graph.
#include <torch/torch.h>

#include <optional>

#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/grad_utils.hpp"
#include "session.hpp"
#include "whole_step.hpp"

namespace libreyolo::core::trainer {
namespace {

// Skipped (non-finite) optimizer steps in a row that end the run. Under float16 a few overflows
// in a row are routine while the gradient scaler backs off from 65536; 24 halvings would take
// it below 2^-8, which only a diverged model needs.
constexpr int kMaxNonFiniteSteps = 5;
constexpr int kMaxNonFiniteStepsFloat16 = 24;
// When the skip is decided on the device, the streak of skipped steps is copied back this
// often, asynchronously, and read at the next interval when the copy has landed (it always has
// by then): watching for divergence adds no host wait to any step, and a diverged run stops at
// most twice this many steps late.
constexpr std::int64_t kSkipStreakReadInterval = 8;

// `streak`: optimizer steps skipped in a row, up to this one. `each_step`: the caller knows
// every step's outcome (host decision), so single skips can be reported as they happen.
void note_skip_streak(Session& s, int streak, bool each_step) {
  const int previous = s.progress.skipped_in_a_row;
  s.progress.skipped_in_a_row = streak;
  if (streak > previous && (streak > 1 || !s.precision.grad_scaler)) {
    // A lone float16 overflow is routine (the scale backs off); anything more is news.
    if (each_step) {
      log::warn("step ", s.progress.global_step + 1, ": non-finite loss or gradients, optimizer step skipped");
    } else {
      log::warn("step ", s.progress.global_step + 1, ": the last ", streak,
                " optimizer steps were skipped for non-finite loss or gradients");
    }
  }
  if (streak >= (s.precision.grad_scaler ? kMaxNonFiniteStepsFloat16 : kMaxNonFiniteSteps)) {
    throw Error("training diverged: " + std::to_string(streak) + " steps in a row had non-finite gradients",
                "the loss became inf or NaN (learning rate too high, bad labels, or float16 overflow)",
                "weights/last.pt holds the last good epoch; lower lr0, check the data, or try amp=false");
  }
}

// streak = (streak + 1) * found_inf: counts skips in a row, back to 0 after a good step. Device
// work only (a recorded step holds it); watch_skip_streak reads it.
void count_skipped_steps_on_device(Session& s) {
  const auto& found_inf = s.scaler->found_inf();
  if (!s.skip_streak.defined()) s.skip_streak = torch::zeros_like(found_inf);
  s.skip_streak.add_(1).mul_(found_inf);
}

// The streak's lagged read, every kSkipStreakReadInterval optimizer steps.
void watch_skip_streak(Session& s) {
  if ((s.progress.global_step + 1) % kSkipStreakReadInterval != 0) return;
  if (const auto streak = s.skip_streak_read.take()) note_skip_streak(s, static_cast<int>(*streak), false);
  s.skip_streak_read.request(s.skip_streak);
}

// The end of a window where the skip is decided on the host (no fused optimizer for this run):
// one 4-byte read of the inf flag.
void finish_window_on_host(Session& s) {
  if (s.config.clip_grad > 0) {
    s.scaler->unscale(*s.optimizer);
    optim::clip_grad_norm(s.optimizer->parameters(), s.config.clip_grad);
  }
  if (s.scaler->step_on_device(*s.optimizer)) {  // a fused optimizer without a device lr
    count_skipped_steps_on_device(s);            // before update() clears the inf flag
    s.scaler->update();
    watch_skip_streak(s);
  } else {
    const bool stepped = s.scaler->step(*s.optimizer);
    s.scaler->update();
    note_skip_streak(s, stepped ? 0 : s.progress.skipped_in_a_row + 1, true);
  }
  if (s.weight_copies) s.weight_copies->refresh();
  // Every optimizer step, skipped or not, as LibreYOLO's trainer does.
  mark_phase(s, profiler::StepPhase::ema);
  if (s.ema) s.ema->update(*s.model);
}

}  // namespace

void mark_phase(Session& s, profiler::StepPhase phase) {
#ifndef LIBREYOLO_WITHOUT_STEP_PROFILER
  profiler::mark_phase(s.observer, phase);
#else
  (void)s;
  (void)phase;
#endif
}

void clear_gradients(Session& s) {
  s.optimizer->zero_grad(/*set_to_none=*/!s.capture->active());
  s.gradients_clear = true;
}

torch::Tensor forward_loss_backward(Session& s, const torch::Tensor& images, const sdk::Targets& targets,
                                    std::int64_t window_size, bool pass_copy_gradients) {
  using profiler::StepPhase;
  std::vector<torch::Tensor> outputs;
  mark_phase(s, StepPhase::forward);
  // What the family's network reads from the targets (a DETR's denoising queries), padded to
  // static shapes where the region may be replayed as a graph.
  const auto region_key = s.model->prepare_training_forward(images, targets, s.capture->active());
  {
    amp::AutocastScope autocast(s.precision);
    std::optional<amp::WeightCopies::Swap> copies;
    if (s.weight_copies) copies.emplace(*s.weight_copies);
    auto features = s.capture->forward(images, region_key);
    mark_phase(s, StepPhase::remainder);
    outputs = s.model->forward_remainder(std::move(features), &targets);
  }
  mark_phase(s, StepPhase::loss);
  const auto loss = (*s.criterion)(outputs, targets, images);
  mark_phase(s, StepPhase::backward);
  s.gradients_clear = false;
  {
    std::optional<amp::WeightGradientStream::Backward> second_stream;
    if (s.weight_grad_stream) second_stream.emplace(*s.weight_grad_stream);
    s.scaler->scale(loss.total / static_cast<double>(window_size)).backward();
    if (second_stream) second_stream->finish();  // before anything reads the weight gradients
  }
  report_weight_gradient_stream(s);
  if (s.weight_copies && pass_copy_gradients) s.weight_copies->pass_gradients();
  std::vector<torch::Tensor> parts;
  for (const auto& component : loss.components) parts.push_back(component.second.detach().to(torch::kFloat32).reshape({}));
  return torch::stack(parts);
}

torch::Tensor forward_backward(Session& s, const data::Batch& batch, std::int64_t window_size,
                               std::mt19937_64& scale_rng) {
  mark_phase(s, profiler::StepPhase::h2d);
  auto images = data::to_network_input(batch.images, s.family->info.input);
  sdk::Targets targets{batch.targets, batch.counts, batch.host_counts};
  if (s.multi_scale) {
    // One of the declared sizes for the whole batch.
    const auto& sizes = s.multi_scale_sizes;
    const int size = sizes[static_cast<std::size_t>(scale_rng() % static_cast<std::uint64_t>(sizes.size()))];
    data::resize_batch(images, targets.boxes, size, s.multi_scale_resize == sdk::MultiScale::Resize::nearest);
  }
  return forward_loss_backward(s, images, targets, window_size);
}

bool window_ends_on_device(const Session& s) { return s.scaler->enabled() && s.optimizer->has_device_lr(); }

void finish_window_on_device(Session& s) {
  if (s.config.clip_grad > 0) {
    s.scaler->unscale(*s.optimizer);
    optim::clip_grad_norm(s.optimizer->parameters(), s.config.clip_grad);
  }
  if (!s.scaler->step_on_device(*s.optimizer)) {
    throw std::logic_error("finish_window_on_device without a fused optimizer step");  // window_ends_on_device
  }
  count_skipped_steps_on_device(s);  // before update() clears the inf flag
  s.scaler->update();
  if (s.weight_copies) s.weight_copies->refresh();
  mark_phase(s, profiler::StepPhase::ema);
  if (s.ema) s.ema->apply(*s.model);  // its decay: ModelEma::advance, before the step
}

void after_window(Session& s) {
  if (window_ends_on_device(s)) watch_skip_streak(s);
  ++s.progress.global_step;
  s.optimizer->set_lr(optim::learning_rate(s.schedule, s.progress.global_step));
}

torch::Tensor train_step(Session& s, const data::Batch& batch, const optim::AccumulationWindow& window,
                         std::mt19937_64& scale_rng) {
  if (auto losses = whole_step(s, batch, window)) return *losses;
  // Normally already cleared at the end of the previous window (below); the run's first step,
  // or one after a forward_backward outside train_step, clears here.
  if (window.starts_window && !s.gradients_clear) clear_gradients(s);
  // Distributed: gradients are averaged over the ranks only on the window's last batch.
  if (s.gradient_sync) s.gradient_sync->prepare(window.ends_window);
  auto losses = forward_backward(s, batch, window.window_size, scale_rng);
  if (s.gradient_sync && window.ends_window) {
    mark_phase(s, profiler::StepPhase::grad_sync);
    s.gradient_sync->finish();
  }
  if (!window.ends_window) return losses;
  mark_phase(s, profiler::StepPhase::optimizer);
  if (window_ends_on_device(s)) {
    if (s.ema) s.ema->advance();
    // The copies' gradients were passed on above, so the fused step only where there are none.
    const bool fused_end = s.fused_optimizer_step && !s.weight_copies;
    if (!fused_end || !finish_with_fused_step(s)) finish_window_on_device(s);
  } else {
    finish_window_on_host(s);
  }
  mark_phase(s, profiler::StepPhase::other);
  // Cleared as soon as the optimizer has consumed them: the host issues this while the GPU
  // still runs the backward, so the next step's first kernel is not held up by ~700 tensors'
  // worth of bookkeeping.
  clear_gradients(s);
  after_window(s);
  return losses;
}

}  // namespace libreyolo::core::trainer
