#include "libreyolo/core/trainer/benchmarks.hpp"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/config/fused_kernel_selection.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/profiler/host_sync_counter.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "libreyolo/core/profiler/kernel_recorder.hpp"
#include "libreyolo/core/profiler/op_callers.hpp"
#include "libreyolo/core/profiler/op_census.hpp"
#include "libreyolo/core/trainer/host_phase_clock.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {
namespace {

using Clock = std::chrono::steady_clock;

// Steps recorded by the kernel profiler after the timed ones (their own timing is not used:
// the profiler slows the host down).
constexpr int kProfiledSteps = 5;
constexpr int kCensusSteps = 2;  // the op census's steps (counts repeat step to step)
constexpr std::size_t kTopKernels = 12;
constexpr std::size_t kTopOps = 12;
constexpr std::size_t kIdleGaps = 12;

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

struct PreparedBench {
  Session session;
  std::optional<data::Batch> batch;
};

void prepare(PreparedBench& bench, const TrainRequest& request, bool cuda_graph) {
  auto& s = bench.session;
  prepare_session(s, request);
  if (cuda_graph != s.config.cuda_graph) s.capture = make_capture_manager(s, cuda_graph);
  enter_training_mode(s);  // freeze='s BatchNorm layers stay in eval mode
  s.model->on_epoch_start({0, s.config.epochs, s.augmentation.pipelines.front().name});
  s.loader->start_epoch({0, 0});  // the first pipeline (mosaic for the YOLOs)
  bench.batch = s.loader->next();
  if (!bench.batch) throw Error("the dataset gave no batch", "the train split is empty", "check data=");
}

void record_kernels(Session& s, const data::Batch& batch, const optim::AccumulationWindow& window,
                    std::mt19937_64& rng, StepBenchmark& result) {
  if (!s.device.is_cuda()) return;
  profiler::KernelRecorder recorder;
  HostPhaseClock clock;
  synchronize(s.device);
  recorder.start();
  s.observer = &clock;
  for (int i = 0; i < kProfiledSteps; ++i) {
    clock.step_begins();
    train_step(s, batch, window, rng);
    clock.train_step_returned();
    synchronize(s.device);  // as the timed steps: the idle time between steps is theirs too
    clock.step_ends();
  }
  s.observer = nullptr;
  const auto events = recorder.stop();
  // Idle time from these steps; host times stay the timed steps' (the profiler slows the host).
  for (const auto& profiled : clock.attribute(events)) {
    for (auto& phase : result.host_phases) {
      if (phase.phase == profiled.phase) phase.gpu_idle_ms = profiled.gpu_idle_ms;
    }
  }
  const auto summary = profiler::summarize(events);
  result.idle_gaps = profiler::longest_idle_gaps(events, kIdleGaps);
  for (const double us : profiler::idle_time_by_gap_length(events, {2, 5, 20, 100})) {
    result.idle_ms_by_gap.push_back(us / 1000.0 / kProfiledSteps);
  }
  result.kernels_per_step = static_cast<double>(summary.events) / kProfiledSteps;
  result.gpu_busy_ms = summary.busy_us / 1000.0 / kProfiledSteps;
  result.kernel_time_ms = summary.kernel_us / 1000.0 / kProfiledSteps;
  for (std::size_t i = 0; i < summary.by_name.size() && i < kTopKernels; ++i) {
    result.top_kernels.emplace_back(summary.by_name[i].name, summary.by_name[i].total_us / 1000.0 / kProfiledSteps);
  }
}

// A few more steps with the op census as the observer: per phase, what the host dispatched.
void count_ops(Session& s, const data::Batch& batch, const optim::AccumulationWindow& window, std::mt19937_64& rng,
               StepBenchmark& result) {
  profiler::OpCensus census;
  s.observer = &census;
  for (int i = 0; i < kCensusSteps; ++i) {
    census.step_begins();
    train_step(s, batch, window, rng);
    census.step_ends();
  }
  s.observer = nullptr;
  const double steps = census.steps();
  for (auto& phase : result.host_phases) {
    for (int p = 0; p < profiler::kStepPhaseCount; ++p) {
      const auto step_phase = static_cast<profiler::StepPhase>(p);
      if (phase.phase != profiler::to_string(step_phase)) continue;
      phase.ops = static_cast<double>(census.count(step_phase).outermost) / steps;
      const auto per_step = [steps](const profiler::OpTally& t) {
        return HostPhaseTime::Ops{t.name, static_cast<double>(t.calls) / steps, t.host_ms / steps};
      };
      for (const auto& t : census.top(step_phase, kTopOps)) phase.top_ops.push_back(per_step(t));
      for (const auto& t : census.top(step_phase, kTopOps, profiler::OpOrder::host_time)) {
        phase.slowest_ops.push_back(per_step(t));
      }
    }
  }
  result.ops_per_step = static_cast<double>(census.total().outermost) / steps;
  result.all_ops_per_step = static_cast<double>(census.total().all) / steps;
}

// Mean ms of `steps` steps issued back to back, one synchronisation after the last (the
// losses are not read: reading one waits for the device).
double back_to_back_ms(Session& s, const data::Batch& batch, const optim::AccumulationWindow& window,
                       std::mt19937_64& rng, int steps) {
  synchronize(s.device);
  const auto start = Clock::now();
  for (int i = 0; i < steps; ++i) train_step(s, batch, window, rng);
  synchronize(s.device);
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / steps;
}

StepBenchmark run_steps(Session& s, const data::Batch& batch, int warmup, int steps) {
  if (steps < 1 || warmup < 0) throw Error("bench needs steps >= 1", "nothing to time", "pass steps=24");
  std::mt19937_64 rng(static_cast<std::uint64_t>(s.config.seed));
  const optim::AccumulationWindow window{0, true, true, 1};
  StepBenchmark result;
  for (int i = 0; i < warmup; ++i) result.losses.push_back(train_step(s, batch, window, rng).sum().item<double>());
  synchronize(s.device);
  device::reset_peak_memory(s.device);
  std::vector<double> ms, host_ms;
  HostPhaseClock clock;  // a few clock reads per step: the host's own phase times, unprofiled
  profiler::HostSyncCounter syncs(s.device.is_cuda() ? s.device.index() : -1);
  s.observer = &clock;
  for (int i = 0; i < steps; ++i) {
    const auto start = Clock::now();
    clock.step_begins();
    syncs.resume();
    const auto losses = train_step(s, batch, window, rng);
    syncs.pause();
    clock.train_step_returned();
    host_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    synchronize(s.device);
    clock.step_ends();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    result.losses.push_back(losses.sum().item<double>());
  }
  s.observer = nullptr;
  if (syncs.available()) result.host_syncs_per_step = static_cast<double>(syncs.count()) / steps;
  result.host_phases = clock.attribute({});
  result.graph_memory_gb = s.capture->graph_memory_gb();
  result.peak_memory_gb = device::peak_memory_gb(s.device);
  if (result.peak_memory_gb >= 0) result.peak_memory_gb += result.graph_memory_gb;
  result.back_to_back_ms = back_to_back_ms(s, batch, window, rng, steps);
  record_kernels(s, batch, window, rng, result);
  count_ops(s, batch, window, rng, result);
  std::sort(ms.begin(), ms.end());
  std::sort(host_ms.begin(), host_ms.end());
  result.host_median_ms = host_ms[host_ms.size() / 2];
  result.batch = static_cast<int>(batch.images.size(0));
  result.imgsz = s.config.imgsz;
  result.steps = steps;
  result.device = s.device.str();
  result.cuda_graph = s.capture->active();
  result.fastest_ms = ms.front();
  result.median_ms = ms[ms.size() / 2];
  result.images_per_second = result.batch / (result.median_ms / 1000.0);
  const auto& counters = s.capture->counters();
  result.captures = counters.captures;
  result.replays = counters.replays;
  result.eager_forwards = counters.eager;
  return result;
}

// The model's weights and buffers as they were before the timed steps, so that both sessions'
// gradients are taken at the same weights: after the steps they have drifted apart wherever a
// kernel accumulates with atomics (grid_sample's backward), and a DETR's matching then picks
// other queries, which says nothing about the capture. Restored in place: a captured graph
// reads these storages.
class WeightSnapshot {
 public:
  explicit WeightSnapshot(torch::nn::Module& model) {
    torch::NoGradGuard no_grad;
    for (auto& t : tensors(model)) saved_.push_back(t.detach().clone());
  }
  void restore(torch::nn::Module& model) const {
    torch::NoGradGuard no_grad;
    auto live = tensors(model);
    for (std::size_t i = 0; i < live.size() && i < saved_.size(); ++i) live[i].detach().copy_(saved_[i]);
  }

 private:
  static std::vector<torch::Tensor> tensors(torch::nn::Module& model) {
    auto all = model.parameters();
    for (auto& b : model.buffers()) all.push_back(b);
    return all;
  }
  std::vector<torch::Tensor> saved_;
};

// The gradients of one more batch (no optimizer step), copied to the CPU, in unscaled units.
// Both sessions draw the same random numbers for it (torch reseeded: a DETR's denoising queries
// come from torch's generator, whose state after the steps differs with capture, which advances
// it by graph offsets) and divide by their own loss scale (the scalers may have grown apart).
std::vector<optim::NamedParameter> gradients_of_one_batch(Session& s, const data::Batch& batch) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(s.config.seed));
  torch::manual_seed(static_cast<std::uint64_t>(s.config.seed));
  // Cleared as train_step clears them (in place while graphs are in use: a replaced .grad
  // would make the backward graph refuse to replay, and this batch would quietly compare eager
  // with eager).
  clear_gradients(s);
  forward_backward(s, batch, 1, rng);
  const double loss_scale = s.scaler->enabled() ? s.scaler->current_scale() : 1.0;
  std::vector<optim::NamedParameter> grads;
  for (const auto& p : optim::unique_named_parameters(*s.model)) {
    const auto& g = p.tensor.grad();
    grads.push_back({p.name, g.defined() ? g.to(torch::kCPU, torch::kFloat64) / loss_scale : torch::Tensor()});
  }
  return grads;
}

// Per parameter, the largest difference of its gradient relative to that gradient's largest
// value: the largest over all parameters (and where), and the median. The median is what a whole
// network's rounding shows: the largest is a gradient that is a nearly cancelling sum, whose
// relative difference can be any size (YOLOv9-t at initialisation: 6.6e9; docs/benchmarks.md,
// "Thirty-fourth session").
struct GradientDifference {
  double largest = 0;
  std::string worst;
  double median = 0;
};

GradientDifference gradient_difference(const std::vector<optim::NamedParameter>& a,
                                       const std::vector<optim::NamedParameter>& b) {
  GradientDifference result;
  std::vector<double> all;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const auto& x = a[i].tensor;
    const auto& y = b[i].tensor;
    double difference = 0;
    if (!x.defined() || !y.defined()) {
      difference = x.defined() != y.defined() ? 1.0 : 0.0;
    } else {
      const double scale = std::max(x.abs().max().item<double>(), 1e-12);
      difference = (x - y).abs().max().item<double>() / scale;
    }
    all.push_back(difference);
    if (difference > result.largest) result = {difference, a[i].name, 0};
  }
  if (!all.empty()) {
    std::nth_element(all.begin(), all.begin() + all.size() / 2, all.end());
    result.median = all[all.size() / 2];
  }
  return result;
}

struct SessionSide {
  const TrainRequest& request;
  bool cuda_graph;
};

// One side's timed steps, then the gradients of one more batch at the initial weights; the
// first side also measures two passes' difference (the noise floor).
std::vector<optim::NamedParameter> run_side(const SessionSide& side, int warmup, int steps, StepBenchmark& timed,
                                            double* repeat_difference) {
  PreparedBench bench;  // one session at a time, so that each peak memory is its own
  prepare(bench, side.request, side.cuda_graph);
  const WeightSnapshot initial(*bench.session.model);
  timed = run_steps(bench.session, *bench.batch, warmup, steps);
  initial.restore(*bench.session.model);  // graphs recorded during the steps replay on these
  if (bench.session.weight_copies) bench.session.weight_copies->mark_stale();
  auto grads = gradients_of_one_batch(bench.session, *bench.batch);
  if (repeat_difference)
    *repeat_difference = gradient_difference(grads, gradients_of_one_batch(bench.session, *bench.batch)).largest;
  return grads;
}

StepComparison compare_sessions(const SessionSide& first, const SessionSide& second, int warmup, int steps) {
  StepComparison result;
  const auto first_grads = run_side(first, warmup, steps, result.first, &result.first_repeat_gradient_difference);
  const auto second_grads = run_side(second, warmup, steps, result.second, nullptr);
  result.speedup = result.first.fastest_ms / result.second.fastest_ms;
  result.back_to_back_speedup = result.first.back_to_back_ms / result.second.back_to_back_ms;
  const auto& a = result.first.losses;
  const auto& b = result.second.losses;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) ++result.identical_losses;
    const double scale = std::max(std::abs(a[i]), 1e-12);
    result.max_loss_difference = std::max(result.max_loss_difference, std::abs(a[i] - b[i]) / scale);
  }
  const auto gradients = gradient_difference(first_grads, second_grads);
  result.max_gradient_difference = gradients.largest;
  result.worst_gradient = gradients.worst;
  result.median_gradient_difference = gradients.median;
  return result;
}

}  // namespace

StepBenchmark benchmark_step(const TrainRequest& request, int warmup, int steps) {
  PreparedBench bench;
  prepare(bench, request, request.config.cuda_graph);
  return run_steps(bench.session, *bench.batch, warmup, steps);
}

std::vector<std::pair<std::string, double>> benchmark_op_callers(const TrainRequest& request, const std::string& op,
                                                                 int warmup, int steps, std::size_t most) {
  if (steps < 1 || warmup < 0) throw Error("bench needs steps >= 1", "nothing to record", "pass steps=3");
  PreparedBench bench;
  prepare(bench, request, /*cuda_graph=*/false);
  std::mt19937_64 rng(static_cast<std::uint64_t>(request.config.seed));
  const optim::AccumulationWindow window{0, true, true, 1};
  for (int i = 0; i < warmup; ++i) train_step(bench.session, *bench.batch, window, rng);
  synchronize(bench.session.device);
  profiler::OpCallers callers(op);
  for (int i = 0; i < steps; ++i) train_step(bench.session, *bench.batch, window, rng);
  synchronize(bench.session.device);
  std::vector<std::pair<std::string, double>> per_step;
  for (const auto& t : callers.top(most)) per_step.emplace_back(t.chain, static_cast<double>(t.calls) / steps);
  return per_step;
}

StepComparison benchmark_capture(const TrainRequest& request, int warmup, int steps) {
  return compare_sessions({request, false}, {request, true}, warmup, steps);
}

StepComparison benchmark_fused(const TrainRequest& request, int warmup, int steps) {
  if (request.config.fused_kernels == "off") {
    throw Error("bench fused compares fused_kernels=off with another setting, and was given off",
                "both sessions would run the composed PyTorch operations",
                "pass fused_kernels=measured (the default), auto, or one kernel's name");
  }
  // The first session: off, or for measured+names the measured default (is the candidate worth
  // adding to the default?).
  TrainRequest composed = request;
  composed.config.fused_kernels = config::fused_kernels_baseline(request.config.fused_kernels);
  return compare_sessions({composed, request.config.cuda_graph}, {request, request.config.cuda_graph}, warmup, steps);
}

TrainBenchmark benchmark_train(const TrainRequest& request) {
  TrainBenchmark result;
  const auto start = Clock::now();
  result.outcome = train(request);
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const auto& records = result.outcome.epochs;
  double images = 0, seconds = 0;
  for (std::size_t i = records.size() > 1 ? 1 : 0; i < records.size(); ++i) {
    images += records[i].images_per_second * records[i].seconds;
    seconds += records[i].seconds;
  }
  result.images_per_second = seconds > 0 ? images / seconds : 0;
  return result;
}

}  // namespace libreyolo::core::trainer
