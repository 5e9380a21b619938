// WeightGradientStream (fused_kernels=weight_grad_stream). On every build, its bookkeeping with a
// recording stream order: what is routed, how far the second stream may fall behind, which
// tensors are held until when, the join, and the hand-over check. On a GPU, the convolutions'
// weight gradients on a second CUDA stream give the gradients one stream gives, bit for bit,
// eager and inside the whole-step graph.
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"
#include "../model_on_gpu.hpp"

#include <torch/cuda.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "libreyolo/core/amp/weight_gradient_stream.hpp"
#include "libreyolo/core/capture/capture_manager.hpp"
#include "capture/whole_step_request.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/side_by_side.hpp"
#include "libreyolo/sdk/weight_gradient_route.hpp"
#include "sdk/fused_test_support.hpp"
#include "yolo9_detector.hpp"

using namespace libreyolo;
using namespace libreyolo::core;

namespace {

const torch::Device kCuda(torch::kCUDA, 0);

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

// How many of `kept` differ in any bit from the reference's gradients (zeros where it has none).
int differing(const std::vector<torch::Tensor>& reference, const std::vector<torch::Tensor>& kept) {
  REQUIRE(reference.size() == kept.size());
  int count = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const auto expected = reference[i].defined() ? reference[i] : torch::zeros_like(kept[i]);
    if (!torch::equal(expected, kept[i])) ++count;
  }
  return count;
}

// Writes down what the bookkeeping asks of the streams, in order.
class RecordingOrder final : public amp::StreamOrder {
 public:
  // `on_first`, where given, says whether the current stream is the backward's first one.
  explicit RecordingOrder(std::vector<std::string>& log, const bool* on_first = nullptr)
      : log_(log), on_first_(on_first) {}
  std::size_t slots() const override { return amp::WeightGradientStream::kMostLayersBehind + 2; }
  void second_waits_for_first() override { log_.push_back("second waits"); }
  void run_on_second(const std::function<void()>& work) override {
    log_.push_back("on second");
    work();
  }
  void mark_done(std::size_t slot) override { log_.push_back("done " + std::to_string(slot)); }
  void first_waits_for(std::size_t slot) override { log_.push_back("first waits " + std::to_string(slot)); }
  void first_waits_for_second() override { log_.push_back("join"); }
  bool current_is_first() const override { return on_first_ == nullptr || *on_first_; }

 private:
  std::vector<std::string>& log_;
  const bool* on_first_;
};

// `n` 1x1 convolutions in a row, the last with a bias.
struct ConvChain : torch::nn::Module {
  explicit ConvChain(int n) {
    for (int i = 0; i < n; ++i) {
      register_module("c" + std::to_string(i),
                      torch::nn::Conv2d(torch::nn::Conv2dOptions(2, 2, 1).bias(i == n - 1)));
    }
  }
};

// What the routed kernel's second-stream work returns: new weight (and bias) gradients.
amp::ConvolutionGradients made_gradients(const amp::WeightCopies::LayerCopies& layer) {
  return {torch::Tensor(), torch::ones_like(layer.weight), layer.bias.defined() ? torch::ones_like(layer.bias) : torch::Tensor()};
}

// What autograd does with a leaf's fresh gradient: hands the tensor itself to .grad.
void hand_over(const amp::WeightCopies::LayerCopies& layer, const amp::ConvolutionGradients& g) {
  layer.weight.mutable_grad() = std::get<1>(g);
  if (layer.bias.defined()) layer.bias.mutable_grad() = std::get<2>(g);
}

// fused_kernels=branch_streams and the host's permission, for one case (process-wide: restored).
struct BranchPermission {
  sdk::FusedKernels before = sdk::fused_kernels();
  explicit BranchPermission(bool branches) {
    if (branches) sdk::set_fused_kernels(sdk::FusedKernels::when_built, "branch_streams");
  }
  ~BranchPermission() {
    sdk::permit_branch_streams(-1);
    sdk::set_fused_kernels(before);
  }
};

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

TEST_CASE("weight gradient stream: routes the copies' weights only, and is active inside a Backward only") {
  const auto model = std::make_shared<ConvChain>(3);
  amp::WeightCopies copies(*model, torch::kFloat64);
  std::vector<std::string> log;
  amp::WeightGradientStream stream(copies.unshared_layers(), std::make_unique<RecordingOrder>(log));
  const auto layers = copies.unshared_layers();
  REQUIRE(layers.size() == 3);
  for (const auto& layer : layers) CHECK(stream.routes(layer.weight));
  CHECK_FALSE(stream.routes(model->parameters()[0]));  // the float32 master, not its copy
  CHECK_FALSE(stream.routes(torch::zeros({2, 2, 1, 1})));
  CHECK(amp::WeightGradientStream::active() == nullptr);
  {
    amp::WeightGradientStream::Backward backward(stream);
    CHECK(amp::WeightGradientStream::active() == &stream);
    backward.finish();
    CHECK(amp::WeightGradientStream::active() == nullptr);
  }
  CHECK(log == std::vector<std::string>{"join"});
  CHECK(stream.routed_last_backward() == 0);
}

TEST_CASE("weight gradient stream: a layer whose backward runs on a side stream (a branch) is not routed") {
  const auto model = std::make_shared<ConvChain>(2);
  amp::WeightCopies copies(*model, torch::kFloat64);
  std::vector<std::string> log;
  bool on_first = false;
  amp::WeightGradientStream stream(copies.unshared_layers(), std::make_unique<RecordingOrder>(log, &on_first));
  const auto layers = copies.unshared_layers();
  for (const auto& layer : layers) CHECK_FALSE(stream.routes(layer.weight));
  on_first = true;
  for (const auto& layer : layers) CHECK(stream.routes(layer.weight));
}

TEST_CASE("weight gradient stream: is the SDK's weight-gradient route inside a Backward, and routes its kernels' work") {
  const auto model = std::make_shared<ConvChain>(2);
  amp::WeightCopies copies(*model, torch::kFloat64);
  std::vector<std::string> log;
  amp::WeightGradientStream stream(copies.unshared_layers(), std::make_unique<RecordingOrder>(log));
  const auto layer = copies.unshared_layers().front();
  const auto made = [&] { return torch::full_like(layer.weight, 2.0); };
  // No backward: the SDK's kernel makes its gradient where it is, asking nobody.
  CHECK(sdk::active_weight_gradient_route() == nullptr);
  CHECK(torch::equal(sdk::routed_weight_gradient(layer.weight, torch::ones({1}), torch::ones({1}), made), made()));
  CHECK(log.empty());
  {
    amp::WeightGradientStream::Backward backward(stream);
    CHECK(sdk::active_weight_gradient_route() == &stream);
    // A weight that is not a routed copy stays on the current stream.
    sdk::routed_weight_gradient(model->parameters()[0], torch::ones({1}), torch::ones({1}), made);
    CHECK(log.empty());
    const auto gradient = sdk::routed_weight_gradient(layer.weight, torch::ones({1}), torch::ones({1}), made);
    CHECK(log == std::vector<std::string>{"second waits", "on second", "done 0"});
    CHECK(stream.held_layers() == 1);
    layer.weight.mutable_grad() = gradient;  // autograd hands it over
    backward.finish();
  }
  CHECK(sdk::active_weight_gradient_route() == nullptr);
  CHECK(stream.routed_last_backward() == 1);
  CHECK(log.back() == "join");
}

TEST_CASE("weight gradient stream: falls at most kMostLayersBehind layers behind, holding their tensors until then") {
  constexpr std::size_t kBehind = amp::WeightGradientStream::kMostLayersBehind;
  const auto model = std::make_shared<ConvChain>(static_cast<int>(kBehind) + 3);
  amp::WeightCopies copies(*model, torch::kFloat64);
  const auto layers = copies.unshared_layers();
  std::vector<std::string> log;
  amp::WeightGradientStream stream(layers, std::make_unique<RecordingOrder>(log));
  std::vector<torch::Tensor> inputs;
  amp::WeightGradientStream::Backward backward(stream);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    CAPTURE(i);
    inputs.push_back(torch::randn({1, 2, 3, 3}));
    const auto grad_output = torch::randn({1, 2, 3, 3});
    log.clear();
    const auto g = stream.on_second_stream(layers[i].weight, grad_output, inputs.back(), [&] { return made_gradients(layers[i]); });
    CHECK_FALSE(std::get<0>(g).defined());  // the input gradient is the caller's
    hand_over(layers[i], g);
    std::vector<std::string> expected{"second waits", "on second", "done " + std::to_string(i % (kBehind + 2))};
    if (i >= kBehind) expected.push_back("first waits " + std::to_string((i - kBehind) % (kBehind + 2)));
    CHECK(log == expected);
    CHECK(stream.held_layers() == std::min(i + 1, kBehind));
    CHECK(inputs.back().use_count() == 2);  // held
    if (i >= kBehind) CHECK(inputs[i - kBehind].use_count() == 1);  // waited for: let go
  }
  log.clear();
  backward.finish();
  CHECK(log == std::vector<std::string>{"join"});
  CHECK(stream.held_layers() == 0);
  for (const auto& input : inputs) CHECK(input.use_count() == 1);
  CHECK(stream.routed_last_backward() == layers.size());
}

TEST_CASE("weight gradient stream: a gradient autograd copied instead of taking it is an error that says so") {
  const auto model = std::make_shared<ConvChain>(2);  // the second layer has a bias
  amp::WeightCopies copies(*model, torch::kFloat64);
  const auto layers = copies.unshared_layers();
  std::vector<std::string> log;
  amp::WeightGradientStream stream(layers, std::make_unique<RecordingOrder>(log));
  const auto x = torch::randn({1, 2, 3, 3});
  const auto route_both = [&] {
    std::vector<amp::ConvolutionGradients> made;
    for (const auto& layer : layers) made.push_back(stream.on_second_stream(layer.weight, x, x, [&] { return made_gradients(layer); }));
    return made;
  };
  SUBCASE("handed over: no error") {
    amp::WeightGradientStream::Backward backward(stream);
    const auto made = route_both();
    for (std::size_t i = 0; i < layers.size(); ++i) hand_over(layers[i], made[i]);
    CHECK_NOTHROW(backward.finish());
  }
  SUBCASE("a copied bias gradient") {
    amp::WeightGradientStream::Backward backward(stream);
    const auto made = route_both();
    for (std::size_t i = 0; i < layers.size(); ++i) hand_over(layers[i], made[i]);
    layers[1].bias.mutable_grad() = std::get<2>(made[1]).clone();
    CHECK_THROWS_WITH_AS(backward.finish(), doctest::Contains("weight_grad_stream: autograd copied the gradient"),
                         std::logic_error);
    CHECK(log.back() == "join");  // joined before the check
  }
  SUBCASE("no gradient at all") {
    amp::WeightGradientStream::Backward backward(stream);
    route_both();
    CHECK_THROWS_AS(backward.finish(), std::logic_error);
  }
  SUBCASE("an exception during the backward: the destructor joins and checks nothing") {
    try {
      amp::WeightGradientStream::Backward backward(stream);
      route_both();
      throw std::runtime_error("backward failed");
    } catch (const std::runtime_error&) {
    }
    CHECK(log.back() == "join");
    CHECK(amp::WeightGradientStream::active() == nullptr);
    CHECK(stream.held_layers() == 0);
  }
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

namespace {

std::unique_ptr<amp::WeightGradientStream> started(const amp::WeightCopies& copies) {
  std::string refusal;
  auto stream = amp::WeightGradientStream::start(copies, 0, refusal);
  REQUIRE_MESSAGE(stream != nullptr, refusal);
  return stream;
}

// Two identical YOLOv9-t on the GPU with float16 weight copies: the reference's backward on one
// stream, the model's weight gradients on `stream`'s second one.
struct RoutedPair {
  std::shared_ptr<families::yolo9::Yolo9Detector> reference = model_on_gpu<families::yolo9::Yolo9Detector>("t");
  std::shared_ptr<families::yolo9::Yolo9Detector> model = model_on_gpu<families::yolo9::Yolo9Detector>("t");
  amp::WeightCopies reference_copies{*reference, torch::kFloat16};
  amp::WeightCopies copies{*model, torch::kFloat16};
  std::unique_ptr<amp::WeightGradientStream> stream = started(copies);
};

// YOLOv9-t with the weight gradients on the second stream (and, with `branches`, its branches on
// side streams: side_by_side.hpp) against one stream: eager, recorded, replayed, replayed.
void check_equal_one_stream(bool branches) {
  DeterministicCudnn deterministic;
  const auto plan = amp::plan_precision(true, "float16", kCuda, true);
  RoutedPair pair;
  auto &reference = pair.reference, &model = pair.model;  // references, not bindings: lambdas capture them
  auto &reference_copies = pair.reference_copies, &copies = pair.copies;
  auto& stream = pair.stream;
  const BranchPermission permission(branches);

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
  const capture::StepRun expected_runs[] = {capture::StepRun::eager, capture::StepRun::recorded,
                                            capture::StepRun::replayed, capture::StepRun::replayed};
  std::vector<torch::Tensor> kept;  // the step's gradients, copied inside it
  for (const auto& p : model->parameters()) kept.push_back(torch::zeros_like(p));
  for (int step = 0; step < 4; ++step) {  // eager, recorded, replayed, replayed
    CAPTURE(step);
    images.copy_(torch::rand_like(probe));
    sdk::permit_branch_streams(-1);
    copies_step(*reference, reference_copies, nullptr, plan, images, weights);
    sdk::permit_branch_streams(branches ? 0 : -1);
    if (branches) {
      const auto why_not = sdk::branch_streams_refusal({images});
      REQUIRE_MESSAGE(why_not.empty(), why_not);
    }
    // A recording computes nothing: its gradients are the warm-up's, which only a copy made
    // inside the step keeps (the .grad tensors are the graph's, written at each replay).
    const auto how = manager.run_step(key, [&] {
      copies_step(*model, copies, stream.get(), plan, images, weights);
      torch::NoGradGuard no_grad;
      const auto parameters = model->parameters();
      for (std::size_t i = 0; i < kept.size(); ++i) {
        if (parameters[i].grad().defined()) kept[i].copy_(parameters[i].grad());
      }
    }, [] {});
    CHECK(how == expected_runs[step]);
    CHECK(differing(gradients(*reference), kept) == 0);  // a parameter without one: zeros
  }
  CHECK(manager.counters().captures == 1);
  CHECK(manager.counters().replays == 2);
  if (!branches) {
    CHECK(stream->routed_last_backward() == copies.layers());  // every convolution that trains
  } else {  // the layers of branches on side streams keep their weight gradients there
    CHECK(stream->routed_last_backward() > 0);
    CHECK(stream->routed_last_backward() < copies.layers());
  }
}

}  // namespace

TEST_CASE("weight gradient stream: YOLOv9-t's gradients equal one stream's bit for bit, eager and recorded") {
  if (!torch::cuda::is_available()) return;
  check_equal_one_stream(/*branches=*/false);
}

TEST_CASE("weight gradient stream: with the branches on side streams too, YOLOv9-t's gradients are still one stream's") {
  if (!torch::cuda::is_available()) return;
  check_equal_one_stream(/*branches=*/true);
}

// The SDK's own small convolutions (small_convolutions.hpp) never reach PyTorch's operator: their
// weight gradients take the second stream through the SDK's route. Their weight gradients add
// float32 sums with atomics (not the same bits from run to run), so the two passes agree within
// float16 rounding, not bit for bit.
TEST_CASE("weight gradient stream: the SDK's small convolutions' weight gradients take it too") {
  if (!torch::cuda::is_available()) return;
  const test::PolicyGuard wide(sdk::FusedKernels::when_built, "small_convolutions_wide");
  const DeterministicCudnn deterministic;
  const auto plan = amp::plan_precision(true, "float16", kCuda, true);
  RoutedPair pair;
  auto &reference = pair.reference, &model = pair.model;  // references, not bindings: lambdas capture them
  auto &reference_copies = pair.reference_copies, &copies = pair.copies;
  auto& stream = pair.stream;
  const auto images = torch::rand({4, 3, 256, 256}, kCuda).contiguous(torch::MemoryFormat::ChannelsLast);
  std::vector<torch::Tensor> weights;
  {
    amp::AutocastScope autocast(plan);
    amp::WeightCopies::Swap swap(copies);
    torch::NoGradGuard no_grad;
    for (const auto& o : model->forward_capturable(images)) weights.push_back(torch::randn(o.sizes(), kCuda) * 1e-3);
  }
  copies_step(*reference, reference_copies, nullptr, plan, images, weights);
  copies_step(*model, copies, stream.get(), plan, images, weights);  // finish() checks the hand-over
  CHECK(stream->routed_last_backward() == copies.layers());
  const auto expected = gradients(*reference), got = gradients(*model);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!expected[i].defined()) continue;
    CAPTURE(i);
    CHECK(test::relative_difference(got[i], expected[i]) < 1e-2);
  }
}
