#pragma once
// batch=-1 (docs/design.md#multi-gpu-training, LibreYOLO's AutoBatch): the largest power-of-two batch whose
// training step fits in 60% of the GPU's memory, measured by running forward and backward at
// batches 1, 2, 4, ... up to 64 (or nbs) and fitting a line through peak memory against batch.
// The probe runs on one GPU; under multi-GPU the result is per GPU and the global batch is
// world_size times it, capped at nbs (more GPUs mean fewer accumulation steps).

#include <torch/types.h>

#include <optional>
#include <vector>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/trainer/trainer.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "libreyolo/sdk/family.hpp"

namespace libreyolo::core::trainer {

constexpr double kAutobatchMemoryFraction = 0.60;
constexpr int kAutobatchFallback = 16;   // without a CUDA device, or when probing tells nothing
constexpr int kAutobatchMaxProbe = 64;
constexpr int kAutobatchMax = 1024;

// Peak memory measured at each probed batch.
struct MemoryProbe {
  std::vector<int> batches;
  std::vector<double> peak_gib;
};

// The largest power of two strictly below the batch where the least-squares line through the
// probe reaches `target_gib`, clamped to [1, kAutobatchMax]; nullopt when the probe has fewer
// than two points or memory does not grow with the batch.
std::optional<int> batch_for_memory(const MemoryProbe& probe, double target_gib);

// The global batch from one device's batch: times world_size, capped at nbs (when nbs > 0)
// rounded down to a multiple of world_size, never below world_size.
int global_autobatch(int device_batch, int world_size, int nbs);

// Measures `model` (a fresh detector, in training mode; its BatchNorm statistics are restored
// afterwards) on `device`: forward with autocast as `precision` says, backward of the outputs'
// sum, at batches 1, 2, 4, ... up to max_probe, stopping at an out-of-memory or 90% of memory.
// Returns the per-device batch, or kAutobatchFallback on a CPU device (with a log line).
int probe_device_batch(sdk::Detector& model, const sdk::InputFormat& input, int imgsz, const torch::Device& device,
                       const amp::PrecisionPlan& precision, int max_probe);

// probe_device_batch for the model a `train` request describes (its family, size, the dataset's
// class count, imgsz, amp, nbs) on `device`: what `train` runs for batch=-1 on the GPU that
// probes (rank 0's, or the launcher's first GPU before any worker exists).
int probe_request_batch(const TrainRequest& request, const torch::Device& device);

}  // namespace libreyolo::core::trainer
