#pragma once
// The measurements behind `libreyolo-host bench step` and `bench train`, on the real code paths
// (the trainer's own step and loop), so a number here is what training sees.

#include <string>
#include <vector>

#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::core::trainer {

struct StepBenchmark {
  int batch = 0, imgsz = 0, steps = 0;
  std::string device;
  double fastest_ms = 0, median_ms = 0;
  double images_per_second = 0;  // batch / median step time
  double peak_memory_gb = -1;    // -1 on CPU
};

// One real augmented batch (mosaic on) replayed through the full training step (forward, loss,
// backward, optimizer, EMA), `warmup` untimed steps then `steps` timed ones, each bracketed by a
// device synchronisation.
StepBenchmark benchmark_step(const TrainRequest& request, int warmup, int steps);

struct TrainBenchmark {
  TrainOutcome outcome;
  double images_per_second = 0;  // training throughput over epochs 2..N (epoch 1 if only one)
  double wall_seconds = 0;       // the whole run, validation and checkpoints included
};

TrainBenchmark benchmark_train(const TrainRequest& request);

}  // namespace libreyolo::core::trainer
