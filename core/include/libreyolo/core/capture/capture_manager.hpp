#pragma once
// The CUDA-graph capture manager (docs/design.md#cuda-graphs, `cuda_graph=true`). It sits where the
// trainer calls the detector's capturable region and decides, batch by batch, whether to run
// it eager, record it, or replay a recorded graph. It knows families only through their
// declared capture region and never fails a run: anything that prevents capture is one log
// line, and the run trains eager.

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libreyolo/core/capture/capture_policy.hpp"
#include "libreyolo/core/capture/region_graph.hpp"
#include "libreyolo/sdk/family.hpp"

namespace libreyolo::sdk {
class Detector;
}

namespace libreyolo::core::capture {

struct CaptureRequest {
  bool cuda_graph = false;  // the user's option
  bool cuda_device = false; // training runs on a CUDA device
  sdk::CaptureRegion region = sdk::CaptureRegion::network;  // what the family declares
  std::string family;
  int world_size = 1;
  CaptureSettings settings;
  // Region `step` only: why this run cannot record the whole step (multi-scale, no float16
  // gradient scaler, an optimizer without a device-side lr), or "" when it can. When it cannot,
  // the network region is captured instead and the log says why.
  std::string whole_step_refusal;
};

// How many step graphs may be held: they share one memory pool, so each costs little memory
// of its own (target capacities differ, activations do not).
constexpr int kMaxStepGraphs = 8;

// How run_step ran the step.
enum class StepRun { eager, recorded, replayed, fell_back };

// Why capture cannot apply to this run ("" when it can). `recorder_available` is false in a
// build without CUDA.
std::string capture_refusal(const CaptureRequest& request, bool recorder_available);

struct CaptureCounters {
  std::int64_t eager = 0, captures = 0, replays = 0, invalidations = 0, failures = 0;
  std::int64_t unchained_memsets = 0;  // by the recordings, step and region graphs' (fused_kernels=batch_norm_memsets)
};

class CaptureManager {
 public:
  // With cuda_graph=false the manager is silent and always eager; otherwise a refusal is
  // logged once here. `recorder` may be null (no CUDA in this build).
  CaptureManager(const CaptureRequest& request, sdk::Detector& model, std::unique_ptr<GraphRecorder> recorder);
  ~CaptureManager();

  // The capturable region's outputs for `images`, from a graph replay, a fresh recording or
  // the eager forward. Call it under the step's autocast state, once per training forward.
  // `region_key` is what Detector::prepare_training_forward returned: one graph per images
  // shape and key.
  std::vector<torch::Tensor> forward(const torch::Tensor& images, const std::vector<std::int64_t>& region_key = {});

  // The captured region computes something else from now on (the recipe's schedule says so):
  // graphs are dropped and shapes counted afresh. One log line with `reason`; silent when
  // capture is off.
  void invalidate(const std::string& reason);

  // True while graphs may still be used (false when refused or after a failure).
  bool active() const { return recorder_ != nullptr && !policy_.disabled(); }

  // Whole-step mode (region `step`, not refused): the trainer runs its steps through
  // run_step(), and forward() always runs the network eager (it is part of the step).
  bool whole_step() const { return active() && whole_step_; }

  // Runs one training step in whole-step mode. `key` names the step's graph (the batch shape,
  // the target capacity, the accumulation role); `step` trains on the caller's static buffers,
  // the same tensors for every call with this key. The step is run eager, recorded (after one
  // real run on the recording stream) or replayed. A failed recording or replay is one log
  // line, `abandoned` is called (to undo host-side bookkeeping the recording left half done),
  // the step is run eager if it has not run, and the rest of the run trains eager.
  StepRun run_step(const Shape& key, const StepFunction& step, const std::function<void()>& abandoned);

  // After each epoch: one log line if some of its `batches` ran eager (eager_epoch_note).
  void end_epoch(int batches, bool multi_scale);
  const CaptureCounters& counters() const { return counters_; }
  // Device memory the held graphs keep for themselves (their private pools), in GB.
  double graph_memory_gb() const;
  const CapturePolicy& policy() const { return policy_; }

 private:
  void drop_graphs_if_announced();
  void drop_graphs(const std::string& reason);
  std::vector<torch::Tensor> region_forward(const torch::Tensor& images);
  std::vector<torch::Tensor> record_and_run(const Shape& shape, const torch::Tensor& images);
  void fall_back(const std::string& what, const std::string& error);

  sdk::Detector& model_;
  std::unique_ptr<GraphRecorder> recorder_;
  CapturePolicy policy_;
  StepRun record_step(const Shape& key, const StepFunction& step, const std::function<void()>& abandoned);

  std::map<Shape, std::unique_ptr<RegionGraph>> graphs_;
  std::map<Shape, std::unique_ptr<StepGraph>> step_graphs_;
  bool whole_step_ = false;
  std::string region_name_;
  std::uint64_t generation_ = 0;
  bool said_stochastic_ = false;
  CaptureCounters counters_;
};

}  // namespace libreyolo::core::capture
