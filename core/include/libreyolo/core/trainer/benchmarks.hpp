#pragma once
// The measurements behind `libreyolo-host bench step`, `bench capture` and `bench train`, on
// the real code paths (the trainer's own step and loop), so a number here is what training
// sees.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/profiler/kernel_timeline.hpp"
#include "libreyolo/core/trainer/trainer.hpp"

namespace libreyolo::core::trainer {

// One phase of the step as `bench step` saw it (on CUDA, over the kernel-recorded steps).
struct HostPhaseTime {
  std::string phase;       // a StepPhase's name; "start" before the first mark; "synchronize" after train_step
  double host_ms = 0;      // host time in the phase, mean per step
  double gpu_idle_ms = 0;  // GPU idle gaps that ended while the host was in the phase, per step
  double ops = -1;          // operators the host's code called in the phase, per step (OpCensus; -1: not counted)
  // Those operators by name with their calls and host ms per step (OpCensus, whose callbacks
  // slow the host: the times rank kinds of operator, they are not the timed steps' times):
  // most called first, and most host time first.
  struct Ops {
    std::string name;
    double calls = 0, host_ms = 0;
  };
  std::vector<Ops> top_ops, slowest_ops;
};

struct StepBenchmark {
  int batch = 0, imgsz = 0, steps = 0;
  std::string device;
  bool cuda_graph = false;
  double fastest_ms = 0, median_ms = 0;
  // Median time the host spent issuing a step (until train_step returned, before the
  // synchronisation): close to median_ms means the GPU waited for the host.
  double host_median_ms = 0;
  double images_per_second = 0;  // batch / median step time
  // Mean time of `steps` more steps issued back to back as training issues them: no
  // synchronisation between them, one at the end. The synchronised steps above cannot show how
  // much of the host's issue time the GPU hides behind the previous step; this can.
  double back_to_back_ms = 0;
  // Operations in train_step that made the host wait for the device (HostSyncCounter), per
  // timed step; -1 where not counted (CPU).
  double host_syncs_per_step = -1;
  // Allocator peak during the timed steps plus the memory held by CUDA graphs (whose private
  // pools were filled before the timed steps began); -1 on CPU.
  double peak_memory_gb = -1;
  double graph_memory_gb = 0;    // the part held by CUDA graphs
  // From a few extra steps recorded by the Kineto profiler (CUDA only; -1 otherwise).
  double kernels_per_step = -1;  // kernels, copies and memsets the GPU ran
  double gpu_busy_ms = -1;       // union of their intervals, per step
  double kernel_time_ms = -1;    // sum of their durations, per step (> busy: streams overlapped)
  std::vector<std::pair<std::string, double>> top_kernels;  // name, GPU ms per step; most first
  // The longest stretches in those steps in which the GPU ran nothing (steps end at a
  // synchronisation as the timed ones do, so the gap between two steps is included).
  std::vector<profiler::IdleGap> idle_gaps;
  // GPU idle ms per step by gap length: < 2 us, 2-5, 5-20, 20-100, >= 100 us. The shortest are
  // the GPU moving between dependent kernels (inside a graph too); long ones wait for the host.
  std::vector<double> idle_ms_by_gap;
  // Host time per phase (timed steps) and the GPU idle time charged to each (kernel-recorded
  // steps; the phase that issued the kernel the GPU was waiting for). Only "start" and
  // "synchronize" in a build without the profiler's phase marks.
  std::vector<HostPhaseTime> host_phases;
  // Operators dispatched per step (profiler/op_census.hpp, a few extra steps, any device): those
  // the host's own code called, and with the operators they call in turn.
  double ops_per_step = -1, all_ops_per_step = -1;
  std::vector<double> losses;    // sum of the loss components of every step, warm-up included
  std::int64_t captures = 0, replays = 0, eager_forwards = 0;  // how the region ran
};

// One real augmented batch (mosaic on) replayed through the full training step (forward, loss,
// backward, optimizer, EMA), `warmup` untimed steps then `steps` timed ones, each bracketed by a
// device synchronisation. Honours cuda_graph= from the request.
StepBenchmark benchmark_step(const TrainRequest& request, int warmup, int steps);

// Which operators call `op` in the step, per step (profiler/op_callers.hpp): `warmup` steps, then
// `steps` recorded ones, always eager (a replayed graph runs no operators; the captured step is
// recorded from the same operators). Each entry: the chain and its calls per step, most first.
std::vector<std::pair<std::string, double>> benchmark_op_callers(const TrainRequest& request, const std::string& op,
                                                                 int warmup, int steps, std::size_t most);

// Two fresh sessions from the same start (same seed, same batch), one after the other in this
// process (so cuDNN's algorithm choices, cached per process, are the same for both), each timed
// as benchmark_step does; then their loss trajectories compared, and the gradients of one more
// batch at the initial weights (restored after the timed steps, so that drift between the two
// runs does not count).
struct StepComparison {
  StepBenchmark first, second;
  double speedup = 0;                 // first fastest / second fastest
  double back_to_back_speedup = 0;    // first back_to_back_ms / second's: what training would see
  int identical_losses = 0;           // steps whose total loss is bitwise equal
  double max_loss_difference = 0;     // largest |first - second| relative difference
  double max_gradient_difference = 0; // largest relative difference of any parameter's gradient
  std::string worst_gradient;         // the parameter it was found in
  double median_gradient_difference = 0; // the median over parameters of the same measure
  // The same measure between two passes of the first session over that batch at the same
  // weights: the noise floor (kernels that accumulate with atomics, e.g. grid_sample's backward,
  // and a matching that follows the last bits), against which max_gradient_difference says
  // whether the compared setting is at fault.
  double first_repeat_gradient_difference = 0;
};

// The capture manager checked against eager: first eager, second with cuda_graph=true.
StepComparison benchmark_capture(const TrainRequest& request, int warmup, int steps);

// The fused kernels checked against the composed PyTorch ops: first with fused_kernels=off (or,
// for measured+names, with measured: the default against the default and the candidates), second
// with the request's fused_kernels (not off); both with the request's cuda_graph.
StepComparison benchmark_fused(const TrainRequest& request, int warmup, int steps);

struct TrainBenchmark {
  TrainOutcome outcome;
  double images_per_second = 0;  // training throughput over epochs 2..N (epoch 1 if only one)
  double wall_seconds = 0;       // the whole run, validation and checkpoints included
};

TrainBenchmark benchmark_train(const TrainRequest& request);

}  // namespace libreyolo::core::trainer
