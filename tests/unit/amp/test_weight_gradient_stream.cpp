// WeightGradientStream (fused_kernels=weight_grad_stream): the convolutions' weight gradients on
// a second CUDA stream give the gradients one stream gives, bit for bit, eager and inside the
// whole-step graph. Without a CUDA device (CI) only the refusal is checked.
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"

#include <torch/cuda.h>

#include <functional>
#include <optional>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/amp/weight_gradient_stream.hpp"
#include "libreyolo/core/capture/capture_manager.hpp"
#include "yolo9_detector.hpp"

using namespace libreyolo;
using namespace libreyolo::core;

namespace {

const torch::Device kCuda(torch::kCUDA, 0);

std::shared_ptr<families::yolo9::Yolo9Detector> yolo9t_on_gpu() {
  torch::manual_seed(0);
  auto model = std::make_shared<families::yolo9::Yolo9Detector>("t", 80);
  model->to(kCuda);
  torch::NoGradGuard no_grad;
  for (auto& p : model->parameters()) {
    if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  model->train();
  return model;
}

// One forward + backward through the weight copies, the trainer's order; the second stream
// around the backward where given. A fixed random linear function of the outputs is the loss.
void copies_step(families::yolo9::Yolo9Detector& model, amp::WeightCopies& copies, amp::WeightGradientStream* stream,
                 const amp::PrecisionPlan& plan, const torch::Tensor& images, const std::vector<torch::Tensor>& weights) {
  for (auto& p : model.parameters()) p.mutable_grad().reset();
  torch::Tensor loss = torch::zeros({}, images.options().dtype(torch::kFloat32));
  {
    amp::AutocastScope autocast(plan);
    amp::WeightCopies::Swap swap(copies);
    const auto outputs = model.forward_capturable(images);
    for (std::size_t i = 0; i < outputs.size(); ++i) loss = loss + (outputs[i].to(torch::kFloat32) * weights[i]).sum();
  }
  {
    std::optional<amp::WeightGradientStream::Backward> second;
    if (stream) second.emplace(*stream);
    loss.backward();
    if (second) second->finish();
  }
  copies.pass_gradients();
}

std::vector<torch::Tensor> gradients(families::yolo9::Yolo9Detector& model) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : model.parameters()) grads.push_back(p.grad().defined() ? p.grad().clone() : torch::Tensor());
  return grads;
}

// How many gradients differ in any bit (undefined ones must match too).
int differing(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  REQUIRE(a.size() == b.size());
  int count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    REQUIRE(a[i].defined() == b[i].defined());
    if (a[i].defined() && !torch::equal(a[i], b[i])) ++count;
  }
  return count;
}

capture::CaptureRequest whole_step_request() {
  capture::CaptureRequest request;
  request.cuda_graph = true;
  request.cuda_device = true;
  request.family = "test";
  request.region = sdk::CaptureRegion::step;
  request.settings.repeats_before_capture = 1;
  return request;
}

}  // namespace

TEST_CASE("weight gradient stream: refused without a CUDA device, with the reason") {
  if (torch::cuda::is_available()) return;  // the GPU case below
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 4, 3));
  amp::WeightCopies copies(*conv, torch::kFloat64);
  REQUIRE(copies.layers() == 1);
  std::string refusal;
  CHECK(amp::WeightGradientStream::start(copies, 0, refusal) == nullptr);
  CHECK_FALSE(refusal.empty());
}

TEST_CASE("weight gradient stream: a shared weight is not routed (its gradients meet in one .grad)") {
  struct Shared : torch::nn::Module {
    torch::nn::Conv2d a{nullptr}, b{nullptr}, c{nullptr};
    Shared() {
      a = register_module("a", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 3, 1)));
      b = register_module("b", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 3, 1)));
      c = register_module("c", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 3, 1)));
      b->weight = a->weight;  // shared weight
      c->bias = b->bias;      // shared bias only
    }
  };
  const auto model = std::make_shared<Shared>();  // modules() needs the model in a shared_ptr
  amp::WeightCopies copies(*model, torch::kFloat64);
  CHECK(copies.layers() == 3);
  CHECK(copies.unshared_layers().empty());  // a and b share a weight, b and c a bias
}

TEST_CASE("weight gradient stream: YOLOv9-t's gradients equal one stream's bit for bit, eager and recorded") {
  if (!torch::cuda::is_available()) return;
  DeterministicCudnn deterministic;
  const auto plan = amp::plan_precision(true, "float16", kCuda, true);
  auto reference = yolo9t_on_gpu();
  auto model = yolo9t_on_gpu();
  amp::WeightCopies reference_copies(*reference, torch::kFloat16);
  amp::WeightCopies copies(*model, torch::kFloat16);
  std::string refusal;
  auto stream = amp::WeightGradientStream::start(copies, 0, refusal);
  REQUIRE_MESSAGE(stream != nullptr, refusal);

  std::vector<torch::Tensor> weights;
  const auto probe = torch::rand({4, 3, 256, 256}, kCuda).contiguous(torch::MemoryFormat::ChannelsLast);
  {
    amp::AutocastScope autocast(plan);
    amp::WeightCopies::Swap swap(copies);
    torch::NoGradGuard no_grad;
    for (const auto& o : model->forward_capturable(probe)) weights.push_back(torch::randn(o.sizes(), kCuda));
  }
  auto images = torch::empty_like(probe);  // the recorded step's input buffer
  capture::CaptureManager manager(whole_step_request(), *model, capture::make_cuda_graph_recorder());
  REQUIRE(manager.whole_step());
  const capture::Shape key = {4, 3, 256, 256, 0, 1, 1};
  for (int step = 0; step < 4; ++step) {  // eager, recorded, replayed, replayed
    CAPTURE(step);
    images.copy_(torch::rand_like(probe));
    copies_step(*reference, reference_copies, nullptr, plan, images, weights);
    const auto how = manager.run_step(key, [&] { copies_step(*model, copies, stream.get(), plan, images, weights); }, [] {});
    CHECK(how != capture::StepRun::fell_back);
    CHECK(differing(gradients(*reference), gradients(*model)) == 0);
  }
  CHECK(manager.counters().captures == 1);
  CHECK(manager.counters().replays == 2);
  CHECK(stream->routed_last_backward() == copies.layers());  // every convolution that trains
}
