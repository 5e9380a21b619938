// The real CUDA-graph recorder against eager, on the GPU. Without a CUDA device these cases
// return at once (CI has none); on the GPU machine they are the capture manager's proof.
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"

#include <torch/cuda.h>

#include <functional>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/capture/capture_manager.hpp"
#include "yolo9_detector.hpp"

using namespace libreyolo;
using namespace libreyolo::core;

namespace {

const torch::Device kCuda(torch::kCUDA, 0);

capture::CaptureRequest capture_now() {
  capture::CaptureRequest request;
  request.cuda_graph = true;
  request.cuda_device = true;
  request.family = "test";
  request.settings.repeats_before_capture = 1;
  return request;
}

// A fixed random linear function of the outputs, so every output element gets its own gradient.
torch::Tensor weighted_sum(const std::vector<torch::Tensor>& outputs, const std::vector<torch::Tensor>& weights) {
  auto total = torch::zeros({}, outputs[0].options().dtype(torch::kFloat32));
  for (std::size_t i = 0; i < outputs.size(); ++i) total = total + (outputs[i].to(torch::kFloat32) * weights[i]).sum();
  return total;
}

std::vector<torch::Tensor> gradients(sdk::Detector& model) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : model.parameters()) grads.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  return grads;
}

void zero_gradients(sdk::Detector& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
}

struct Comparison {
  double worst = 0;
  int bitwise = 0, total = 0;
};

Comparison compare(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  Comparison c;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].defined() == b[i].defined());
    if (!a[i].defined()) continue;
    ++c.total;
    if (torch::equal(a[i], b[i])) ++c.bitwise;
    const double scale = std::max(a[i].abs().max().item<double>(), 1e-12);
    c.worst = std::max(c.worst, (a[i] - b[i]).abs().max().item<double>() / scale);
  }
  return c;
}

}  // namespace

TEST_CASE("CUDA graph: YOLOv9-t gradients from a captured step equal eager ones (fp32 and fp16 autocast)") {
  if (!torch::cuda::is_available()) return;  // CPU machines: nothing to capture
  DeterministicCudnn deterministic;
  for (const bool amp : {false, true}) {
    CAPTURE(amp);
    torch::manual_seed(0);
    families::yolo9::Yolo9Detector model("t", 80);
    model.to(kCuda);
    {
      torch::NoGradGuard no_grad;
      for (auto& p : model.parameters()) {
        if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
      }
    }
    model.train();
    const auto plan = amp::plan_precision(amp, "float16", kCuda, true);
    auto images = torch::rand({4, 3, 256, 256}, kCuda).contiguous(torch::MemoryFormat::ChannelsLast);
    std::vector<torch::Tensor> weights;
    {
      amp::AutocastScope autocast(plan);
      for (const auto& o : model.forward_capturable(images)) weights.push_back(torch::randn(o.sizes(), kCuda));
    }

    auto other = torch::rand({4, 3, 256, 256}, kCuda).contiguous(torch::MemoryFormat::ChannelsLast);
    capture::CaptureManager manager(capture_now(), model, capture::make_cuda_graph_recorder());
    auto eager = [&](const torch::Tensor& x) { return model.forward_capturable(x); };
    auto captured = [&](const torch::Tensor& x) { return manager.forward(x); };
    // Two micro-batches accumulated into .grad, zeroed in place first, as the trainer does
    // under gradient accumulation: a recorded step, then a replay with other pixels.
    auto window = [&](const std::function<std::vector<torch::Tensor>(const torch::Tensor&)>& forward) {
      zero_gradients(model);
      for (const auto* x : {&images, &other}) {
        torch::Tensor loss;
        {
          amp::AutocastScope autocast(plan);
          loss = weighted_sum(forward(*x), weights);
        }
        loss.backward();
      }
      return gradients(model);
    };

    const auto first = compare(window(eager), window(captured));
    CHECK(manager.counters().captures == 1);
    CHECK(manager.counters().replays == 1);
    MESSAGE("amp=" << amp << ": window with a recorded step and a replay: " << first.bitwise << " of " << first.total
                   << " gradients bitwise equal, largest relative difference " << first.worst);
    CHECK(first.worst <= 1e-5);

    // Gradients that already exist are added to, never replaced by the graph's buffers.
    const auto second = compare(window(eager), window(captured));
    CHECK(manager.counters().replays == 3);
    MESSAGE("amp=" << amp << ": window of two replays: " << second.bitwise << " of " << second.total
                   << " gradients bitwise equal, largest relative difference " << second.worst);
    CHECK(second.worst <= 1e-5);
    CHECK(manager.active());
  }
}

namespace {

// Reads a value back to the host inside its forward: a CUDA graph cannot record that.
class HostSyncingDetector : public sdk::Detector {
 public:
  HostSyncingDetector() { conv_ = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).padding(1))); }
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override {
    const double mean = images.mean().item<double>();
    return {conv_->forward(images) * mean};
  }
  sdk::Candidates decode(const std::vector<torch::Tensor>&) override { return {}; }

 private:
  torch::nn::Conv2d conv_{nullptr};
};

}  // namespace

TEST_CASE("CUDA graph: a region that cannot be captured degrades to eager and training goes on") {
  if (!torch::cuda::is_available()) return;
  HostSyncingDetector model;
  model.to(kCuda);
  capture::CaptureManager manager(capture_now(), model, capture::make_cuda_graph_recorder());
  const auto images = torch::rand({2, 3, 16, 16}, kCuda);
  for (int step = 0; step < 3; ++step) {
    for (auto& p : model.parameters()) p.mutable_grad() = torch::Tensor();
    const auto outputs = manager.forward(images);
    outputs[0].sum().backward();
    for (const auto& p : model.parameters()) CHECK(p.grad().defined());
  }
  CHECK_FALSE(manager.active());
  CHECK(manager.counters().failures == 1);
  CHECK(manager.counters().eager == 3);
  // The device is still usable for ordinary work after the failed capture.
  CHECK(torch::ones({4}, kCuda).sum().item<double>() == 4.0);
  // And for random kernels (a dropout in the eager fall-back): the failed capture must not leave
  // the default generator in its capturing state.
  CHECK_NOTHROW(torch::dropout(torch::ones({64}, kCuda), 0.5, true).sum().item<double>());
}
