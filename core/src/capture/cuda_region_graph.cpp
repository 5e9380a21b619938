// CUDA builds only (see core/CMakeLists.txt). Records a detector's capturable region the way
// PyTorch's make_graphed_callables does, for one input shape.
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <mutex>
#include <stdexcept>
#include <utility>

#include "cuda_capture_support.hpp"
#include "cuda_graph_memsets.hpp"
#include "libreyolo/sdk/batch_norm_workspaces.hpp"

namespace libreyolo::core::capture {
namespace {

using namespace cuda_support;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// make_graphed_callables' count: enough for cuDNN's benchmark mode to settle its algorithm
// choices and for lazily created workspaces to exist before anything is recorded.
constexpr int kWarmupIterations = 3;
class CudaRegionGraph : public RegionGraph {
 public:
  std::vector<torch::Tensor> run(const torch::Tensor& images) override;
  double pinned_gb() const override { return pinned_gb_; }
  std::int64_t unchained_memsets() const override { return unchained_; }

  // Filled by CudaGraphRecorder::record (pointers: CUDAGraph cannot be moved, and whether it is
  // kept for editing is a constructor argument).
  std::unique_ptr<at::cuda::CUDAGraph> forward_graph, backward_graph;
  torch::Tensor static_input;
  std::vector<torch::Tensor> static_outputs;       // every region output
  std::vector<std::size_t> differentiable;          // indices of outputs that carry gradients
  std::vector<torch::Tensor> static_grad_outputs;  // one per differentiable output
  std::vector<torch::Tensor> parameters;
  std::vector<const void*> grad_storage;           // each parameter's .grad when recorded
  torch::Tensor gradient_anchor = torch::zeros({}, torch::requires_grad());  // see GraphedRegion
  double pinned_gb_ = 0;
  std::int64_t unchained_ = 0;  // memsets taken off the two graphs' chains (batch_norm_memsets)

  std::vector<torch::Tensor> replay_forward(const torch::Tensor& images) {
    static_input.copy_(images);
    forward_graph->replay();
    std::vector<torch::Tensor> outputs;
    outputs.reserve(static_outputs.size());
    for (const auto& output : static_outputs) outputs.push_back(output.detach());
    return outputs;
  }

  void replay_backward(const variable_list& grad_outputs) {
    for (std::size_t k = 0; k < differentiable.size(); ++k) {
      const auto& grad = grad_outputs[differentiable[k]];
      if (grad.defined()) {
        static_grad_outputs[k].copy_(grad);
      } else {
        static_grad_outputs[k].zero_();  // that output did not reach the loss
      }
    }
    backward_graph->replay();
  }
};

// The backward graph adds the region's parameter gradients into each parameter's .grad itself
// (one multi-tensor add inside the graph instead of one AccumulateGrad launch per parameter,
// the same in-place addition and so the same bits). That holds only while every .grad is the
// tensor it recorded: the trainer zeroes gradients in place and never replaces them.
void check_gradients_unchanged(const CudaRegionGraph& graph) {
  for (std::size_t i = 0; i < graph.parameters.size(); ++i) {
    const auto& grad = graph.parameters[i].grad();
    if (!grad.defined() || grad.data_ptr() != graph.grad_storage[i]) {
      throw std::runtime_error("a parameter's .grad was replaced after the graph was recorded");
    }
  }
}

// Joins the two graphs to autograd. Arguments: the graph (as an integer handle: the manager
// keeps the graph alive until the step's backward is over), the images, and the graph's
// gradient anchor: one scalar leaf that needs a gradient, so that autograd marks the outputs
// as differentiable and calls backward(). The parameters are deliberately not inputs: the
// backward graph adds into their .grad itself, and routing ~700 of them through this node (an
// edge each on the way in, an AccumulateGrad visit each on the way out) made the host take
// 14.6 ms instead of 9.5-11.2 ms to issue a YOLOv9-t batch-8 step (docs/benchmarks.md).
struct GraphedRegion : torch::autograd::Function<GraphedRegion> {
  static variable_list forward(AutogradContext* ctx, std::int64_t handle, const torch::Tensor& images,
                               const torch::Tensor& gradient_anchor) {
    (void)gradient_anchor;
    ctx->saved_data["graph"] = handle;
    return reinterpret_cast<CudaRegionGraph*>(handle)->replay_forward(images);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto* graph = reinterpret_cast<CudaRegionGraph*>(ctx->saved_data["graph"].toInt());
    graph->replay_backward(grad_outputs);
    // Nothing for autograd to accumulate: the graph already added into every .grad.
    return variable_list(3);
  }
};

std::vector<torch::Tensor> CudaRegionGraph::run(const torch::Tensor& images) {
  if (images.sizes() != static_input.sizes()) {
    throw std::logic_error("a CUDA graph was replayed with a batch shape it did not record");
  }
  check_gradients_unchanged(*this);
  return GraphedRegion::apply(reinterpret_cast<std::int64_t>(this), images, gradient_anchor);
}

// Records `work` into a new graph in `slot`; under batch_norm_memsets the memsets into the
// BatchNorm layers' own workspaces are then taken off its chain (cuda_graph_memsets.hpp), as for
// whole steps. Returns how many moved.
template <class Work>
std::int64_t record_graph(std::unique_ptr<at::cuda::CUDAGraph>& slot, const char* what,
                          const c10::cuda::CUDAStream& stream, PoolId pool, Work&& work) {
  const bool edit = edit_memsets();
  slot = new_graph(edit);
  sdk::start_counting_workspace_claims();
  record_on(*slot, stream, pool, std::forward<Work>(work));
  return edit ? unchain_and_instantiate(*slot, what) : 0;
}

class CudaGraphRecorder : public GraphRecorder {
 public:
  std::unique_ptr<RegionGraph> record(const RegionFunction& region, const torch::Tensor& images,
                                      const std::vector<torch::Tensor>& parameters,
                                      const std::vector<torch::Tensor>& buffers) override {
    const c10::DeviceIndex device = images.device().index();
    const auto main_stream = c10::cuda::getCurrentCUDAStream(device);
    const auto side_stream = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device);
    auto graph = std::make_unique<CudaRegionGraph>();
    graph->parameters = parameters;
    graph->static_input = torch::empty_like(images);
    graph->static_input.copy_(images);

    warm_up(region, *graph, buffers, main_stream, side_stream);
    // Gradients the graph will add into must exist, outside its private pool: zeros where
    // none yet (0 + g is g, as AccumulateGrad's first assignment).
    for (auto& p : graph->parameters) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      graph->grad_storage.push_back(p.grad().data_ptr());
    }
    torch::cuda::synchronize(device);
    const auto reserved_before = reserved_bytes(device);

    AutocastCacheOff cache_off;
    const auto pool = at::cuda::graph_pool_handle();
    stream_waits_for(side_stream, main_stream);
    std::vector<torch::Tensor> outputs;
    graph->unchained_ += record_graph(graph->forward_graph, "the region's forward graph's", side_stream, pool,
                                      [&] { outputs = region(graph->static_input); });
    std::vector<torch::Tensor> differentiable_outputs;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs[i].requires_grad()) continue;
      graph->differentiable.push_back(i);
      differentiable_outputs.push_back(outputs[i]);
      graph->static_grad_outputs.push_back(torch::zeros_like(outputs[i]));
    }
    if (differentiable_outputs.empty()) throw std::runtime_error("the capturable region has no output that needs gradients");
    graph->unchained_ += record_graph(graph->backward_graph, "the region's backward graph's", side_stream, pool, [&] {
      const auto grads = torch::autograd::grad(differentiable_outputs, parameters, graph->static_grad_outputs,
                                               /*retain_graph=*/false, /*create_graph=*/false, /*allow_unused=*/true);
      torch::NoGradGuard no_grad;
      std::vector<torch::Tensor> accumulators, increments;
      for (std::size_t i = 0; i < grads.size(); ++i) {
        if (!grads[i].defined()) continue;  // a parameter the region does not reach
        accumulators.push_back(parameters[i].grad());
        increments.push_back(grads[i]);
      }
      if (!accumulators.empty()) at::_foreach_add_(accumulators, increments);
    });
    for (auto& output : outputs) graph->static_outputs.push_back(output.detach());
    stream_waits_for(main_stream, side_stream);
    torch::cuda::synchronize(device);
    graph->pinned_gb_ = static_cast<double>(reserved_bytes(device) - reserved_before) / kGB;
    return graph;
  }

  std::unique_ptr<StepGraph> record_step(const StepFunction& step, const torch::Device& device) override {
    return record_cuda_step(step, device.index());
  }

 private:
  // Runs the region forward and backward a few times on the side stream, then puts the
  // BatchNorm statistics back as they were: recording must not train the model.
  static void warm_up(const RegionFunction& region, CudaRegionGraph& graph, const std::vector<torch::Tensor>& buffers,
                      const c10::cuda::CUDAStream& main_stream, const c10::cuda::CUDAStream& side_stream) {
    std::vector<torch::Tensor> saved;
    {
      torch::NoGradGuard no_grad;
      for (const auto& buffer : buffers) saved.push_back(buffer.clone());
    }
    stream_waits_for(side_stream, main_stream);
    {
      c10::cuda::CUDAStreamGuard guard(side_stream);
      for (int i = 0; i < kWarmupIterations; ++i) {
        std::vector<torch::Tensor> outputs, grad_outputs;
        for (auto& output : region(graph.static_input)) {
          if (!output.requires_grad()) continue;
          grad_outputs.push_back(torch::zeros_like(output));
          outputs.push_back(output);
        }
        if (!outputs.empty()) {
          torch::autograd::grad(outputs, graph.parameters, grad_outputs, false, false, /*allow_unused=*/true);
        }
      }
    }
    stream_waits_for(main_stream, side_stream);
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
    torch::cuda::synchronize(main_stream.device_index());
  }
};

}  // namespace

std::unique_ptr<GraphRecorder> make_cuda_graph_recorder() { return std::make_unique<CudaGraphRecorder>(); }

}  // namespace libreyolo::core::capture
