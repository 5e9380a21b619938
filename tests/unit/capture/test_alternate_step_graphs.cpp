// fused_kernels=alternate_step_graphs (core/src/capture/cuda_step_graph.cpp): each whole-step
// graph recorded twice, the two copies replayed in turn. On a GPU: a small network's training
// steps (convolution, cuDNN's BatchNorm on channels-last input, as the YOLOs' blocks, then SGD with
// fresh gradients, as the whole step runs them) through the capture manager leave the weights and
// running statistics bit for bit where the same steps run eagerly leave them, with one copy and
// with two; so every replay of either copy reads the buffers written since and writes what the next
// step reads. Skipped without CUDA (the CPU build records no graph).
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"

#include <torch/cuda.h>

#include <string>
#include <vector>

#include "libreyolo/core/capture/capture_manager.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "../sdk/fused_test_support.hpp"
#include "tiny_detector.hpp"
#include "whole_step_request.hpp"

using namespace libreyolo;
using namespace libreyolo::core;

namespace {

struct Net : torch::nn::Module {
  Net() {
    first = register_module("first", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1).bias(false)));
    norm = register_module("norm", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(8).momentum(0.03)));
    second = register_module("second", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 4, 3).padding(1)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return second->forward(torch::silu(norm->forward(first->forward(x)))); }
  torch::nn::Conv2d first{nullptr}, second{nullptr};
  torch::nn::BatchNorm2d norm{nullptr};
};

std::shared_ptr<Net> net_on_gpu() {
  torch::manual_seed(5);
  auto net = std::make_shared<Net>();
  net->to(torch::kCUDA);
  torch::NoGradGuard no_grad;
  for (auto& p : net->parameters()) {  // convolution weights channels-last, as the YOLOs'
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
  net->train();
  return net;
}

// One training step on tensors that outlive it: gradients dropped first (backward then hands its
// tensors to .grad, as the whole step without accumulation does), SGD in place.
void train_step(Net& net, const torch::Tensor& images, const torch::Tensor& upstream) {
  for (auto& p : net.parameters()) p.mutable_grad() = torch::Tensor();
  (net.forward(images) * upstream).sum().backward();
  torch::NoGradGuard no_grad;
  for (auto& p : net.parameters()) p.sub_(p.grad(), 0.01);
}

std::vector<torch::Tensor> state(Net& net) {
  std::vector<torch::Tensor> all;
  for (const auto& p : net.parameters()) all.push_back(p.detach().clone());
  for (const auto& b : net.buffers()) all.push_back(b.clone());
  return all;
}

int differing(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  int count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) count += torch::equal(a[i], b[i]) ? 0 : 1;
  return count;
}

// Eager, recorded, then six replays (three of each copy when there are two), each step checked
// against the same step run eagerly on a twin network.
void check_against_eager(const std::string& policy_names) {
  const test::PolicyGuard policy(sdk::FusedKernels::when_built, policy_names);
  const DeterministicCudnn deterministic;
  auto reference = net_on_gpu();
  auto captured = net_on_gpu();
  const auto gpu = torch::TensorOptions().device(torch::kCUDA);
  auto images = torch::empty({4, 3, 32, 32}, gpu).contiguous(torch::MemoryFormat::ChannelsLast);  // static buffers
  auto upstream = torch::empty({4, 4, 32, 32}, gpu).contiguous(torch::MemoryFormat::ChannelsLast);
  test::TinyDetector announcer;  // the manager listens to a detector; this step does not use it
  announcer.to(torch::kCUDA);     // but records on the device of its parameters
  capture::CaptureManager manager(whole_step_request(), announcer, capture::make_cuda_graph_recorder());
  REQUIRE(manager.whole_step());
  const capture::Shape key = {4, 3, 32, 32, 0, 1, 1};
  for (int step = 0; step < 8; ++step) {
    CAPTURE(step);
    images.copy_(torch::randn_like(images));
    upstream.copy_(torch::randn_like(upstream));
    train_step(*reference, images, upstream);
    const auto how = manager.run_step(key, [&] { train_step(*captured, images, upstream); }, [] {});
    CHECK((how == (step == 0 ? capture::StepRun::eager : step == 1 ? capture::StepRun::recorded : capture::StepRun::replayed)));
    CHECK(differing(state(*captured), state(*reference)) == 0);
  }
  CHECK(manager.counters().captures == 1);
  CHECK(manager.counters().replays == 6);
}

}  // namespace

TEST_CASE("alternate step graphs: one copy and two copies in turn train as eager steps do, bit for bit") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  SUBCASE("one copy (the default)") { check_against_eager("weight_casts"); }
  SUBCASE("two copies in turn") { check_against_eager("alternate_step_graphs"); }
}
