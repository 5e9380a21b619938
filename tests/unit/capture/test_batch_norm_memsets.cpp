// fused_kernels=batch_norm_memsets, batch_norm_memsets_shifted, batch_norm_memsets_merged and
// batch_norm_memsets_leading (libreyolo/sdk/batch_norm_workspaces.hpp,
// core/src/capture/workspace_memsets.cpp): the SDK's BatchNorm calls cuDNN with each layer's own
// workspaces, and the step recorder takes cuDNN's memsets into them off the graph's chain. On a
// GPU: a small float16 network (convolution, the SDK's BatchNorm on channels-last maps, SiLU,
// convolution, SGD with fresh gradients, as the whole step runs them) trained through the capture
// manager for eight steps (eager, recorded, six replays) ends with its weights and running
// statistics bit for bit where the same steps with the memsets as recorded leave them, with the
// memsets moved each of the three ways, and the recording did move some. Compared with recorded steps, not
// eager ones: in run41d (H100) this float16 network's replays and its eager twin parted at the
// last step even without the option, which the float32 network of test_alternate_step_graphs.cpp
// does not; each run says where its steps parted from the eager twin's. The same network recorded
// as a region (forward and backward graphs, the loss eager) likewise. Each also with the merged
// placement and batch_norm_memsets_recording_only (the own workspaces only while recording). Skipped without CUDA (the
// CPU build records no graph and never takes the path).
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"

#include <libreyolo/sdk/batch_norm.hpp>
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

struct HalfNet : torch::nn::Module {
  HalfNet() {
    first = register_module("first", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 32, 3).padding(1).bias(false)));
    norm = register_module("norm", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(32).eps(1e-3).momentum(0.03)));
    second = register_module("second", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 8, 3).padding(1)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return second->forward(torch::silu(norm->forward(first->forward(x)))); }
  torch::nn::Conv2d first{nullptr}, second{nullptr};
  sdk::BatchNorm2d norm{nullptr};
};

// Convolutions in float16 channels-last, the BatchNorm's parameters float32: as under autocast.
std::shared_ptr<HalfNet> half_net_on_gpu() {
  torch::manual_seed(6);
  auto net = std::make_shared<HalfNet>();
  net->to(torch::kCUDA);
  for (auto* conv : {&net->first, &net->second}) {
    (*conv)->to(torch::kHalf);
    torch::NoGradGuard no_grad;
    (*conv)->weight.set_data((*conv)->weight.data().contiguous(torch::MemoryFormat::ChannelsLast));
  }
  net->train();
  return net;
}

void train_step(HalfNet& net, const torch::Tensor& images, const torch::Tensor& upstream) {
  for (auto& p : net.parameters()) p.mutable_grad() = torch::Tensor();
  (net.forward(images).to(torch::kFloat) * upstream).sum().backward();
  torch::NoGradGuard no_grad;
  for (auto& p : net.parameters()) p.sub_(p.grad(), 0.01);
}

std::vector<torch::Tensor> state(HalfNet& net) {
  std::vector<torch::Tensor> all;
  for (const auto& p : net.parameters()) all.push_back(p.detach().clone());
  for (const auto& b : net.buffers()) all.push_back(b.clone());
  return all;
}

// The names of the parameters and buffers whose values differ.
std::string differing(HalfNet& a, HalfNet& b) {
  std::string names;
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  for (const auto& item : pa) {
    if (!torch::equal(item.value(), pb[item.key()])) names += item.key() + " ";
  }
  const auto ba = a.named_buffers(), bb = b.named_buffers();
  for (const auto& item : ba) {
    if (!torch::equal(item.value(), bb[item.key()])) names += item.key() + " ";
  }
  return names;
}

struct Run {
  std::vector<torch::Tensor> state;
  std::int64_t moved = 0;  // memsets the recording took off the chain
};

// Eight steps through the capture manager under `policy_names`, the same seeded inputs every run,
// an eager twin beside it for the message.
Run captured_run(const std::string& policy_names) {
  const test::PolicyGuard policy(sdk::FusedKernels::when_built, policy_names);
  const DeterministicCudnn deterministic;
  auto reference = half_net_on_gpu();
  auto captured = half_net_on_gpu();
  const auto gpu = torch::TensorOptions().device(torch::kCUDA);
  auto images = torch::empty({16, 3, 20, 20}, gpu.dtype(torch::kHalf)).contiguous(torch::MemoryFormat::ChannelsLast);
  auto upstream = torch::empty({16, 8, 20, 20}, gpu).contiguous(torch::MemoryFormat::ChannelsLast);
  test::TinyDetector announcer;
  announcer.to(torch::kCUDA);
  capture::CaptureManager manager(whole_step_request(), announcer, capture::make_cuda_graph_recorder());
  REQUIRE(manager.whole_step());
  const capture::Shape key = {16, 3, 20, 20, 0, 1, 1};
  torch::manual_seed(8);
  std::string parted;
  for (int step = 0; step < 8; ++step) {
    images.copy_(torch::randn_like(images));
    upstream.copy_(torch::randn_like(upstream));
    train_step(*reference, images, upstream);
    manager.run_step(key, [&] { train_step(*captured, images, upstream); }, [] {});
    const auto names = differing(*captured, *reference);
    if (!names.empty()) parted += " step " + std::to_string(step) + ": " + names;
  }
  MESSAGE(policy_names << ": against the eager twin" << (parted.empty() ? std::string(" no step parted") : parted));
  CHECK(manager.counters().replays == 6);
  return {state(*captured), manager.counters().unchained_memsets};
}

int differing_tensors(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  int count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) count += torch::equal(a[i], b[i]) ? 0 : 1;
  return count;
}

// `run` under each placement ends where it ends with the memsets as recorded, having moved at
// least `fewest` of them (the recording as is moves none).
void check_each_placement(Run (*run)(const std::string&), std::int64_t fewest) {
  const auto as_recorded = run("weight_casts");
  CHECK(as_recorded.moved == 0);
  for (const std::string names : {"batch_norm_memsets", "batch_norm_memsets_shifted", "batch_norm_memsets_merged",
                                   "batch_norm_memsets_leading",
                                   "batch_norm_memsets_leading+memset_kernel_nodes",
                                   "batch_norm_memsets_leading+memset_kernel_nodes+copy_kernel_nodes",
                                   "batch_norm_memsets_merged+batch_norm_memsets_recording_only"}) {
    CAPTURE(names);
    const auto moved = run(names);
    CHECK(moved.moved >= fewest);
    CHECK(differing_tensors(moved.state, as_recorded.state) == 0);
  }
}

}  // namespace

TEST_CASE("batch_norm_memsets: steps with cuDNN's memsets off the recorded chain train as recorded steps do, bit for bit") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  check_each_placement(captured_run, 1);
}

namespace {

// Seven steps of the same network recorded as a region (a forward graph and a backward graph
// around an eager loss, as RTMDet and the DETRs record their networks) under `policy_names`, from
// the same seeded inputs every run: the weights and statistics after them, and the memsets moved.
Run region_run(const std::string& policy_names) {
  const test::PolicyGuard policy(sdk::FusedKernels::when_built, policy_names);
  const DeterministicCudnn deterministic;
  auto net = half_net_on_gpu();
  const auto gpu = torch::TensorOptions().device(torch::kCUDA);
  auto images = torch::empty({16, 3, 20, 20}, gpu.dtype(torch::kHalf)).contiguous(torch::MemoryFormat::ChannelsLast);
  auto upstream = torch::empty({16, 8, 20, 20}, gpu).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto parameters = net->parameters();
  for (auto& p : net->parameters()) p.mutable_grad() = torch::zeros_like(p);  // zeroed in place from here on
  torch::manual_seed(8);
  images.copy_(torch::randn_like(images));
  auto recorder = capture::make_cuda_graph_recorder();
  REQUIRE(recorder != nullptr);
  const auto graph = recorder->record(
      [&](const torch::Tensor& x) { return std::vector<torch::Tensor>{net->forward(x)}; }, images, parameters,
      net->buffers());
  for (int step = 0; step < 7; ++step) {
    images.copy_(torch::randn_like(images));
    upstream.copy_(torch::randn_like(upstream));
    for (auto& p : net->parameters()) p.mutable_grad().zero_();
    const auto outputs = graph->run(images);
    (outputs.at(0).to(torch::kFloat) * upstream).sum().backward();
    torch::NoGradGuard no_grad;
    for (auto& p : net->parameters()) p.sub_(p.grad(), 0.01);
  }
  return {state(*net), graph->unchained_memsets()};
}

}  // namespace

TEST_CASE("batch_norm_memsets: a recorded region's forward and backward graphs with the memsets off their chains train as recorded ones do, bit for bit") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  check_each_placement(region_run, 2);  // the BatchNorm's forward memset in one graph, its backward's in the other
}
