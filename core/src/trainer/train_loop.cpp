#include "train_loop.hpp"

#include <torch/torch.h>

#include <chrono>
#include <random>

#include "libreyolo/core/data/loader/epoch_sampler.hpp"
#include "libreyolo/core/distributed/rank_mean.hpp"
#include "libreyolo/core/optim/accumulation.hpp"
#include "training_state.hpp"

namespace libreyolo::core::trainer {
namespace {

using Clock = std::chrono::steady_clock;

// Puts the default CPU generator back as it was when this was made.
class CpuRandomState {
 public:
  CpuRandomState() : state_(cpu_random_state()) {}
  ~CpuRandomState() { set_cpu_random_state(state_); }
  CpuRandomState(const CpuRandomState&) = delete;
  CpuRandomState& operator=(const CpuRandomState&) = delete;

 private:
  torch::Tensor state_;
};

// One epoch of train_step(), with after_step hooks after every step.
EpochResult train_one_epoch(TrainLoop& loop, const Hooks& hooks) {
  Session& s = loop.session;
  const auto& c = s.config;
  enter_training_mode(s);  // freeze='s BatchNorm layers stay in eval mode
  s.model->on_epoch_start({loop.epoch, c.epochs, s.augmentation.pipelines.at(s.pipeline).name});
  s.loader->start_epoch({loop.epoch, s.pipeline});
  const auto steps = static_cast<std::int64_t>(s.loader->steps_per_epoch());
  const auto components = static_cast<std::int64_t>(s.criterion->component_names().size());
  loop.loss_sums = torch::zeros({components}, torch::TensorOptions().device(s.device));
  loop.steps_counted = 0;
  loop.step = 0;
  loop.images = 0;
  // Multi-scale sizes are drawn per batch from this epoch's own stream.
  std::mt19937_64 scale_rng(data::mix_seed(static_cast<std::uint64_t>(c.seed), static_cast<std::uint64_t>(loop.epoch), 0x5CA1E));
  const auto start = Clock::now();
  for (;;) {
    if (s.observer) {
      s.observer->step_begins();
      s.observer->phase_begins(profiler::StepPhase::data_wait);
    }
    auto batch = s.loader->next();
    if (!batch) break;
    const auto window = optim::accumulation_window(loop.epoch, loop.step, steps, s.accumulate);
    loop.loss_sums += train_step(s, *batch, window, scale_rng);
    if (s.observer) s.observer->step_ends();
    ++loop.steps_counted;
    loop.images += static_cast<std::size_t>(batch->images.size(0));
    ++loop.step;
    loop.batch = &*batch;
    for (const auto& hook : hooks) hook->after_step(loop);
    loop.batch = nullptr;
    if (loop.epoch_ending()) break;
  }
  // The clock stops when the device has run the epoch's steps, not when the host has issued
  // them: a captured step returns once its graph is queued, and the work still queued at the
  // epoch's end was counted as done (YOLOv9-t's 8-step COCO128 epochs printed up to 2,650
  // images/s on an H100, 6 ms a step, where its GPU needs about 17; 2026-12-06). The losses'
  // read below waits for the device anyway, so this costs nothing.
  if (s.device.is_cuda()) torch::cuda::synchronize(s.device.index());
  EpochResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // The epoch's losses as the run's, not rank 0's shard's (every rank trained as many steps).
  if (s.collectives) loop.loss_sums = distributed::mean_over_ranks(*s.collectives, loop.loss_sums);
  result.images = loop.images;
  result.losses = loop.running_means();
  return result;
}

// The basic record of the epoch just trained; validation adds its metrics.
EpochRecord epoch_record(const TrainLoop& loop) {
  const Session& s = loop.session;
  EpochRecord record;
  record.epoch = loop.epoch + 1;
  record.seconds = loop.result.seconds;
  // Every rank trains as many images as rank 0: the run's throughput is world_size times its own.
  record.images_per_second =
      loop.result.seconds > 0 ? static_cast<double>(loop.result.images) * s.world_size / loop.result.seconds : 0;
  for (const auto& group : s.optimizer->groups()) record.learning_rates.push_back(group.lr);
  record.train_losses = loop.result.losses;
  return record;
}

}  // namespace

std::vector<std::pair<std::string, double>> TrainLoop::running_means() const {
  std::vector<std::pair<std::string, double>> means;
  const auto names = session.criterion->component_names();
  const auto host = (loss_sums / std::max<std::int64_t>(steps_counted, 1)).to(torch::kCPU);
  for (std::size_t i = 0; i < names.size(); ++i) means.emplace_back(names[i], host[static_cast<int64_t>(i)].item<double>());
  return means;
}

void run_epochs(TrainLoop& loop, const Hooks& hooks) {
  Session& s = loop.session;
  for (const auto& hook : hooks) {
    // A hook's preparation (the validation hook builds a detector, whose initialisation draws
    // random numbers) must not move the training's random stream: a resumed run restored it
    // from last.pt, and the starting state hooks::checkpoints saves must be the one epoch 1
    // trains from.
    const CpuRandomState unchanged;
    hook->before_train(loop);
  }
  for (loop.epoch = s.progress.start_epoch; loop.epoch < s.config.epochs; ++loop.epoch) {
    loop.end_epoch_ = false;
    for (const auto& hook : hooks) hook->before_epoch(loop);
    loop.result = train_one_epoch(loop, hooks);  // running out of memory: trainer.cpp's train()
    loop.record = epoch_record(loop);
    loop.improved = false;
    for (const auto& hook : hooks) {
      hook->after_epoch(loop);
      if (loop.abandoned_) break;
    }
    if (!loop.abandoned_) loop.outcome.epochs_completed = loop.epoch + 1;
    if (loop.stop_ != StopReason::none) break;
  }
  loop.outcome.interrupted = loop.stop_ == StopReason::interrupted;
  loop.outcome.stopped_early = loop.stop_ == StopReason::early_stop;
  for (const auto& hook : hooks) hook->after_train(loop);
}

}  // namespace libreyolo::core::trainer
