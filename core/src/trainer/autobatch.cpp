#include "libreyolo/core/trainer/autobatch.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "libreyolo/core/data/dataset/dataset_config.hpp"
#include "libreyolo/core/data/loader/network_input.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/device/cuda_info.hpp"
#include "libreyolo/core/log/log.hpp"

namespace libreyolo::core::trainer {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The largest power of two strictly below x (1 when x <= 2).
int power_of_two_below(double x) {
  int p = 1;
  while (static_cast<double>(p) * 2 < x) p *= 2;
  return p;
}

// One forward and backward at `batch` images; the allocator's peak in GiB.
double peak_memory_at(sdk::Detector& model, const sdk::InputFormat& input, int imgsz, const torch::Device& device,
                      const amp::PrecisionPlan& precision, int batch) {
  device::reset_peak_memory(device);
  auto pixels = torch::zeros({batch, imgsz, imgsz, 3}, torch::TensorOptions().dtype(torch::kUInt8).device(device));
  auto images = data::to_network_input(pixels, input);
  torch::Tensor sum;
  {
    amp::AutocastScope autocast(precision);
    auto outputs = model.forward_remainder(model.forward_capturable(images), nullptr);
    sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
    for (const auto& output : outputs) sum = sum + output.to(torch::kFloat32).sum();
  }
  sum.backward();
  model.zero_grad(/*set_to_none=*/true);
  return device::peak_memory_gb(device);  // GiB (the allocator's bytes / 2^30)
}

}  // namespace

std::optional<int> batch_for_memory(const MemoryProbe& probe, double target_gib) {
  const auto n = probe.batches.size();
  if (n < 2 || probe.peak_gib.size() != n) return std::nullopt;
  double mean_b = 0, mean_m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_b += probe.batches[i];
    mean_m += probe.peak_gib[i];
  }
  mean_b /= static_cast<double>(n);
  mean_m /= static_cast<double>(n);
  double covariance = 0, variance = 0;
  for (std::size_t i = 0; i < n; ++i) {
    covariance += (probe.batches[i] - mean_b) * (probe.peak_gib[i] - mean_m);
    variance += (probe.batches[i] - mean_b) * (probe.batches[i] - mean_b);
  }
  if (variance <= 0) return std::nullopt;
  const double slope = covariance / variance;
  if (slope <= 0) return std::nullopt;
  const double intercept = mean_m - slope * mean_b;
  const double raw = (target_gib - intercept) / slope;
  return std::clamp(power_of_two_below(raw), 1, kAutobatchMax);
}

int global_autobatch(int device_batch, int world_size, int nbs) {
  const int world = std::max(1, world_size);
  int global = std::max(1, device_batch) * world;
  if (nbs > 0 && global > nbs) global = std::max(world, nbs / world * world);
  return global;
}

int probe_device_batch(sdk::Detector& model, const sdk::InputFormat& input, int imgsz, const torch::Device& device,
                       const amp::PrecisionPlan& precision, int max_probe) {
  if (!device.is_cuda()) {
    log::info("autobatch: ", device.str(), " is not a CUDA device; batch=", kAutobatchFallback);
    return kAutobatchFallback;
  }
  const double total_gib = static_cast<double>(device::total_memory_bytes(device)) / kGiB;
  const double target_gib = total_gib * kAutobatchMemoryFraction;
  // The probe's batches must not leave a trace: BatchNorm statistics go back as they were.
  std::vector<torch::Tensor> saved;
  for (const auto& buffer : model.buffers()) saved.push_back(buffer.clone());
  model.train();
  // cuDNN's benchmark mode would autotune every convolution anew at each probed batch (seven
  // shapes, each tuned once and never used again): measure with the default algorithms.
  const bool benchmark = at::globalContext().benchmarkCuDNN();
  at::globalContext().setBenchmarkCuDNN(false);
  MemoryProbe probe;
  for (int batch = 1; batch <= std::max(1, max_probe); batch *= 2) {
    try {
      const double peak = peak_memory_at(model, input, imgsz, device, precision, batch);
      probe.batches.push_back(batch);
      probe.peak_gib.push_back(peak);
      log::debug("autobatch: batch ", batch, " peaks at ", peak, " GiB");
      if (peak > total_gib * 0.9) break;
    } catch (const c10::OutOfMemoryError&) {
      model.zero_grad(/*set_to_none=*/true);
      break;  // the points so far still give a line
    }
  }
  at::globalContext().setBenchmarkCuDNN(benchmark);
  {
    torch::NoGradGuard no_grad;
    auto buffers = model.buffers();
    for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
  }
  const auto batch = batch_for_memory(probe, target_gib);
  if (!batch) {
    log::warn("autobatch: the probe at batches 1..", max_probe, " gave no usable memory line; batch=",
              kAutobatchFallback);
    return kAutobatchFallback;
  }
  log::info("autobatch: ", *batch, " images per GPU fit in ", static_cast<int>(kAutobatchMemoryFraction * 100),
            "% of ", device.str(), "'s ", total_gib, " GiB (probed batches 1..", probe.batches.back(), ")");
  return *batch;
}

int probe_request_batch(const TrainRequest& request, const torch::Device& device) {
  const auto& config = request.config;
  const auto dataset = data::load_dataset(config.data, request.bundled_datasets);
  auto model = request.family->family->create_detector({request.size, dataset.nc(), config.imgsz});
  model->to(device);
  const auto precision =
      amp::plan_precision(config.amp, config.amp_dtype, device, device::cuda_supports_bfloat16(device));
  return probe_device_batch(*model, request.family->info.input, config.imgsz, device, precision,
                            config.nbs > 0 ? config.nbs : kAutobatchMaxProbe);
}

}  // namespace libreyolo::core::trainer
