#include "libreyolo/core/trainer/benchmarks.hpp"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/error.hpp"
#include "session.hpp"

namespace libreyolo::core::trainer {
namespace {

using Clock = std::chrono::steady_clock;

void synchronize(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

}  // namespace

StepBenchmark benchmark_step(const TrainRequest& request, int warmup, int steps) {
  if (steps < 1 || warmup < 0) throw Error("bench step needs steps >= 1", "nothing to time", "pass steps=24");
  Session s;
  prepare_session(s, request);
  s.model->train();
  s.model->on_epoch_start({0, s.config.epochs, true});
  s.loader->start_epoch({0, true});
  const auto batch = s.loader->next();
  if (!batch) throw Error("the dataset gave no batch", "the train split is empty", "check data=");
  std::mt19937_64 rng(static_cast<std::uint64_t>(s.config.seed));
  const optim::AccumulationWindow window{0, true, true, 1};
  for (int i = 0; i < warmup; ++i) train_step(s, *batch, window, rng);
  synchronize(s.device);
  device::reset_peak_memory(s.device);
  std::vector<double> ms;
  for (int i = 0; i < steps; ++i) {
    const auto start = Clock::now();
    train_step(s, *batch, window, rng);
    synchronize(s.device);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  StepBenchmark result;
  result.batch = static_cast<int>(batch->images.size(0));
  result.imgsz = s.config.imgsz;
  result.steps = steps;
  result.device = s.device.str();
  result.fastest_ms = ms.front();
  result.median_ms = ms[ms.size() / 2];
  result.images_per_second = result.batch / (result.median_ms / 1000.0);
  result.peak_memory_gb = device::peak_memory_gb(s.device);
  return result;
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
