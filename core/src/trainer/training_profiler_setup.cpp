#include "libreyolo/core/trainer/training_profiler_setup.hpp"

#include <torch/version.h>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/profiler/torch_device_probe.hpp"
#include "libreyolo/core/util/machine_info.hpp"
#include "libreyolo/sdk/version.hpp"

namespace libreyolo::core::profiler {
namespace {

std::string yes_no(bool flag) { return flag ? "true" : "false"; }

// The options that decide how fast a step runs; enough to reproduce the measurement.
TextPairs describe_config(const config::TrainConfig& c, const std::string& model, const c10::Device& device) {
  return {{"model", model},
          {"data", c.data},
          {"device", device.str()},
          {"imgsz", std::to_string(c.imgsz)},
          {"batch", std::to_string(c.batch)},
          {"workers", std::to_string(c.workers)},
          {"cache", c.cache},
          {"amp", yes_no(c.amp)},
          {"amp_dtype", c.amp_dtype},
          {"cuda_graph", yes_no(c.cuda_graph)},
          {"multi_scale", yes_no(c.multi_scale)},
          {"ema", yes_no(c.ema)},
          {"nbs", std::to_string(c.nbs)},
          {"epochs", std::to_string(c.epochs)},
          {"no_aug_epochs", std::to_string(c.no_aug_epochs)},
          {"profile_skip", std::to_string(c.profile_skip)},
          {"profile_steps", std::to_string(c.profile_steps)},
          {"seed", std::to_string(c.seed)}};
}

TextPairs describe_environment(const DeviceProbe& probe) {
  const auto machine = util::machine_info();
  return {{"device", probe.description()},
          {"cpu", machine.cpu_model},
          {"cpu_threads", std::to_string(machine.cpu_cores)},
          {"libtorch", TORCH_VERSION},
          {"libreyolo_sdk", LIBREYOLO_SDK_VERSION},
          {"date", machine.date_utc}};
}

}  // namespace

std::unique_ptr<TrainingProfiler> make_training_profiler(const config::TrainConfig& config, const std::string& model,
                                                         const c10::Device& device,
                                                         const std::filesystem::path& run_root, int rank,
                                                         int world_size) {
  if (!config.profile) return nullptr;
  if (world_size > 1) {
    // One rank's view: its steps include waiting for the others, and its kernel timeline shows
    // NCCL's collectives beside its own kernels. Measuring every rank would need one report each.
    if (rank != 0) return nullptr;
    log::info("profile=true: rank 0 of ", world_size, " is measured (its steps include the collectives; "
              "the report's NCCL line says how much of them ran beside other kernels)");
  }
  auto probe = make_device_probe(device);
  ProfilerSettings settings;
  settings.skip = config.profile_skip;
  settings.steps = config.profile_steps;
  settings.output_dir = run_root / "prof";
  settings.config = describe_config(config, model, device);
  settings.environment = describe_environment(*probe);
  return std::make_unique<TrainingProfiler>(std::move(settings), std::move(probe));
}

}  // namespace libreyolo::core::profiler
