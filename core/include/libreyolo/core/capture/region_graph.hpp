#pragma once
// A recorded forward + backward of a detector's capturable region for one input shape, and
// the recorder that makes one. The CUDA recorder (cuda_region_graph.cpp) works as PyTorch's
// make_graphed_callables: warm-up on a side stream, a static input buffer, a forward graph, a
// backward graph fed by static grad-output buffers, tied together by one autograd function.
// Tests substitute their own recorder to exercise the capture manager without a GPU.

#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

namespace libreyolo::core::capture {

// The region as a function of the image batch: the detector's forward_capturable under the
// caller's autocast state.
using RegionFunction = std::function<std::vector<torch::Tensor>(const torch::Tensor& images)>;

class RegionGraph {
 public:
  virtual ~RegionGraph() = default;
  // Copies `images` into the static input and replays the forward. The outputs are joined to
  // autograd: backward replays the recorded backward, which adds each parameter's gradient
  // into its .grad in place, as autograd's accumulation does for an eager forward. Throws if
  // a .grad was replaced since recording (gradients must be zeroed in place, never reset).
  virtual std::vector<torch::Tensor> run(const torch::Tensor& images) = 0;
  // Device memory the graph keeps for itself (static buffers and its private pool), in GB.
  virtual double pinned_gb() const = 0;
  // Memsets taken off the forward and backward graphs' chains (fused_kernels=batch_norm_memsets).
  virtual std::int64_t unchained_memsets() const { return 0; }
};

// One whole training step, recorded (CaptureRegion::step): forward, loss, backward, gradient
// scaler, optimizer and EMA, all on tensors that stay where they were when it was recorded
// (the caller's static input buffers, the parameters, their .grad, the optimizer state).
using StepFunction = std::function<void()>;

class StepGraph {
 public:
  virtual ~StepGraph() = default;
  // Runs the recorded step again, on whatever the static buffers hold now.
  virtual void replay() = 0;
  // Device memory this graph added to the step graphs' shared pool when it was recorded, in GB.
  virtual double pinned_gb() const = 0;
  // Memsets taken off the recorded chain (fused_kernels=batch_norm_memsets), over its copies.
  virtual std::int64_t unchained_memsets() const { return 0; }
};

class GraphRecorder {
 public:
  virtual ~GraphRecorder() = default;
  // Records `region` for the shape of `images`. `parameters` are the tensors whose gradients
  // the backward graph accumulates (a missing .grad is created as zeros first); `buffers`
  // (BatchNorm running statistics) are restored after the warm-up iterations, so recording
  // leaves the model's state as it found it. Throws on any failure; the caller falls back to
  // eager.
  virtual std::unique_ptr<RegionGraph> record(const RegionFunction& region, const torch::Tensor& images,
                                              const std::vector<torch::Tensor>& parameters,
                                              const std::vector<torch::Tensor>& buffers) = 0;

  // Runs `step` once on the recording stream (a real training step: the warm-up PyTorch's
  // whole-network capture asks for, and the step of the batch now in the static buffers), then
  // records it without running it. Every step graph shares one memory pool: they are replayed
  // one at a time on one stream, and what one leaves in the pool is never read by another.
  // An exception from that first run is the step's own and propagates as an eager step's would;
  // a failure to record throws CaptureFailure, with the step done once.
  virtual std::unique_ptr<StepGraph> record_step(const StepFunction& step, const torch::Device& device);
};

// Recording failed after the step itself had run (record_step).
class CaptureFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The CUDA-graph recorder; nullptr in a build without CUDA.
std::unique_ptr<GraphRecorder> make_cuda_graph_recorder();

}  // namespace libreyolo::core::capture
