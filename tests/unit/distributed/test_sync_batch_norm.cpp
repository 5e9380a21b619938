// Synchronized BatchNorm (sync_bn=true): sdk::BatchNorm2d told to normalise over the global
// batch through core::distributed collectives, checked against torch's BatchNorm2d on the whole
// batch. Ranks are threads (thread_collectives.hpp).

#include "../torch_doctest.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <sstream>

#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/distributed/sync_batch_norm.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "thread_collectives.hpp"
#include "../../../core/src/distributed/native_sync_batch_norm.hpp"  // the kernels' two directions, for thread-ranks on one GPU
#include "support/test_paths.hpp"

using namespace libreyolo;
namespace distributed = libreyolo::core::distributed;
using test::ThreadCollectives;
using test::ThreadWorld;

namespace {

constexpr int64_t kBatch = 8;
constexpr int64_t kChannels = 3;

torch::nn::BatchNorm2dOptions layer_options() {
  return torch::nn::BatchNorm2dOptions(kChannels).eps(1e-3).momentum(0.03);
}

// max |a - b| / max(|b|max, 1e-12): one number per comparison, for the report.
double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  const auto scale = std::max(b.abs().max().item<double>(), 1e-12);
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>() / scale;
}

double max_abs_error(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

// Fills a BatchNorm's affine parameters with values away from (1, 0) so they matter.
void randomize(torch::nn::BatchNorm2dImpl& layer) {
  torch::NoGradGuard no_grad;
  const auto channels = layer.options.num_features();
  if (layer.weight.defined()) layer.weight.copy_(torch::rand({channels}) + 0.5);
  if (layer.bias.defined()) layer.bias.copy_(torch::randn({channels}));
}

void copy_state(const torch::nn::BatchNorm2dImpl& from, torch::nn::BatchNorm2dImpl& to) {
  torch::NoGradGuard no_grad;
  auto target = to.named_parameters(false);
  for (const auto& item : from.named_parameters(false)) {
    if (item.value().defined()) target[item.key()].copy_(item.value());
  }
  auto buffers = to.named_buffers(false);
  for (const auto& item : from.named_buffers(false)) {
    if (item.value().defined()) buffers[item.key()].copy_(item.value());
  }
}

struct Step {
  torch::Tensor input;   // the whole batch [8, C, H, W], contiguous
  torch::Tensor upward;  // fixed random tensor: loss = (y * upward).sum()
};

Step make_step(int64_t height, int64_t width) {
  // A mean far from zero and a modest spread: what the running-mean shift is there for.
  return {torch::randn({kBatch, kChannels, height, width}) * 2.0 + 5.0,
          torch::randn({kBatch, kChannels, height, width})};
}

struct Result {
  torch::Tensor output, input_grad, weight_grad, bias_grad;
};

// Where a comparison runs: the device, and the ranks' input type (float16: what autocast hands
// a BatchNorm on CUDA; the reference then normalises the same rounded values in float32).
struct Setting {
  torch::Device device = torch::kCPU;
  torch::Dtype input_type = torch::kFloat32;
};

// torch's own BatchNorm2d on the whole batch.
Result reference_step(torch::nn::BatchNorm2d& layer, const Step& step, const Setting& setting) {
  layer->zero_grad();
  auto x = step.input.to(setting.input_type).to(setting.device, torch::kFloat32, false, /*copy=*/true).requires_grad_(true);
  auto y = layer->forward(x);
  (y * step.upward.to(setting.device)).sum().backward();
  return {y.detach().cpu(), x.grad().cpu(), layer->weight.grad().cpu(), layer->bias.grad().cpu()};
}

// One rank's slice of the batch, on the setting's device and type (channels-last if asked).
torch::Tensor rank_input(const Step& step, int rank, int world, bool channels_last, const Setting& setting) {
  const int64_t share = kBatch / world;
  auto x = step.input.narrow(0, rank * share, share).to(setting.device, setting.input_type, false, /*copy=*/true);
  return channels_last ? x.contiguous(at::MemoryFormat::ChannelsLast) : x;
}

torch::Tensor rank_upward(const Step& step, int rank, int world, const Setting& setting) {
  const int64_t share = kBatch / world;
  return step.upward.narrow(0, rank * share, share).to(setting.device);
}

// How one rank runs its share of a step: through the layer and autograd, or (below) on the
// native kernels' functions directly.
using RankStep = std::function<Result(sdk::BatchNorm2d& layer, const Step& step, int rank, int world,
                                      bool channels_last, const Setting& setting, ThreadCollectives& collectives)>;

// One rank's share of the same step through the layer's forward and autograd.
Result autograd_rank_step(sdk::BatchNorm2d& layer, const Step& step, int rank, int world, bool channels_last,
                          const Setting& setting, ThreadCollectives&) {
  layer->zero_grad();
  auto x = rank_input(step, rank, world, channels_last, setting).requires_grad_(true);
  auto y = layer->forward(x);
  CHECK((y.scalar_type() == setting.input_type));
  if (channels_last) CHECK(y.is_contiguous(at::MemoryFormat::ChannelsLast));
  (y.to(torch::kFloat32) * rank_upward(step, rank, world, setting)).sum().backward();
  return {y.detach().contiguous().cpu().to(torch::kFloat32), x.grad().contiguous().cpu().to(torch::kFloat32),
          layer->weight.grad().cpu(), layer->bias.grad().cpu()};
}

// The same share on native_sync_forward / native_sync_backward, the functions the layer's
// autograd function calls on CUDA. Why not autograd: it runs every CUDA backward of a device on
// that device's one engine thread, so two thread-ranks on one GPU would both need that thread
// inside their backward's all-reduce at once and wait there forever (seen on the H100,
// 2026-12-06). The gradient handed in is the one autograd would give: the upward tensor in y's type.
Result native_rank_step(sdk::BatchNorm2d& layer, const Step& step, int rank, int world, bool channels_last,
                        const Setting& setting, ThreadCollectives& collectives) {
  torch::NoGradGuard no_grad;  // per thread
  auto& bn = *layer;
  bn.num_batches_tracked.add_(1);
  const auto x = rank_input(step, rank, world, channels_last, setting);
  const auto done = distributed::native_sync_forward(x, bn.weight, bn.bias, bn.running_mean, bn.running_var,
                                                     *bn.options.momentum(), bn.options.eps(), collectives);
  CHECK((done.output.scalar_type() == setting.input_type));
  if (channels_last) CHECK(done.output.is_contiguous(at::MemoryFormat::ChannelsLast));
  const auto dy = rank_upward(step, rank, world, setting).to(setting.input_type);
  const auto grads = distributed::native_sync_backward(dy, done, bn.weight, {}, collectives);
  return {done.output.contiguous().cpu().to(torch::kFloat32), grads.input.contiguous().cpu().to(torch::kFloat32),
          grads.weight.cpu(), grads.bias.cpu()};
}

// The worst relative errors over a run, kept for one summary line per test.
struct Worst {
  double output = 0, input_grad = 0, weight_grad = 0, bias_grad = 0, running = 0;
  void print(const std::string& what) const {
    std::cout << "[sync_bn] " << what << ": relative error output " << output << ", input grad "
              << input_grad << ", weight grad " << weight_grad << ", bias grad " << bias_grad
              << ", running stats " << running << "\n";
  }
};

// Trains `world` ranks for two steps against the full-batch reference and checks every step,
// within `tolerance` (relative; float16 inputs round their outputs and gradients).
Worst compare_with_full_batch(int world, bool channels_last, const Setting& setting = {}, double tolerance = 1e-5,
                              const RankStep& rank_step = autograd_rank_step) {
  torch::manual_seed(7);
  torch::nn::BatchNorm2d reference(layer_options());
  randomize(*reference);
  ThreadWorld threads(world);
  std::vector<sdk::BatchNorm2d> layers;
  for (int r = 0; r < world; ++r) {
    layers.emplace_back(layer_options());
    copy_state(*reference, *layers.back());
    layers.back()->to(setting.device);
    distributed::synchronize_batch_norm(*layers.back(), threads.rank(r));
  }
  reference->to(setting.device);

  Worst worst;
  for (int s = 0; s < 2; ++s) {
    const auto step = make_step(5, 4);
    const auto expected = reference_step(reference, step, setting);
    std::vector<Result> ranks(static_cast<std::size_t>(world));
    threads.run([&](int rank, ThreadCollectives& collectives) {
      ranks[static_cast<std::size_t>(rank)] = rank_step(layers[static_cast<std::size_t>(rank)], step, rank,
                                                        world, channels_last, setting, collectives);
    });
    std::vector<torch::Tensor> outputs, input_grads;
    auto weight_grad = torch::zeros({kChannels});
    auto bias_grad = torch::zeros({kChannels});
    for (const auto& result : ranks) {
      outputs.push_back(result.output);
      input_grads.push_back(result.input_grad);
      weight_grad += result.weight_grad;  // what gradient averaging sums (before / world)
      bias_grad += result.bias_grad;
    }
    worst.output = std::max(worst.output, relative_error(torch::cat(outputs), expected.output));
    worst.input_grad = std::max(worst.input_grad, relative_error(torch::cat(input_grads), expected.input_grad));
    worst.weight_grad = std::max(worst.weight_grad, relative_error(weight_grad, expected.weight_grad));
    worst.bias_grad = std::max(worst.bias_grad, relative_error(bias_grad, expected.bias_grad));
    // float16 outputs are rounded to half a unit in the last place: relative to their size.
    const double output_scale = setting.input_type == torch::kFloat16
                                    ? std::max(1.0, expected.output.abs().max().item<double>()) : 1.0;
    CHECK(max_abs_error(torch::cat(outputs), expected.output) < tolerance * output_scale);
  }
  for (const auto& layer : layers) {
    worst.running = std::max({worst.running, relative_error(layer->running_mean.cpu(), reference->running_mean.cpu()),
                              relative_error(layer->running_var.cpu(), reference->running_var.cpu())});
    CHECK(layer->num_batches_tracked.item<int64_t>() == 2);
  }
  CHECK(worst.output < tolerance);
  CHECK(worst.input_grad < tolerance);
  CHECK(worst.weight_grad < tolerance);
  CHECK(worst.bias_grad < tolerance);
  CHECK(worst.running < 1e-5);  // statistics are float32 either way
  // Two steps, each one all-reduce forward and one backward, on every rank.
  for (int r = 0; r < world; ++r) CHECK(threads.rank(r)->calls().all_reduce == 4);
  return worst;
}

// A module with one BatchNorm of each kind, one of them nested.
struct Mixed : torch::nn::Module {
  Mixed() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 1).bias(false)));
    synced = register_module("synced", sdk::BatchNorm2d(4));
    inner = register_module("inner", std::make_shared<Inner>());
  }
  struct Inner : torch::nn::Module {
    Inner() { plain = register_module("plain", torch::nn::BatchNorm2d(4)); }
    torch::nn::BatchNorm2d plain{nullptr};
  };
  torch::nn::Conv2d conv{nullptr};
  sdk::BatchNorm2d synced{nullptr};
  std::shared_ptr<Inner> inner;
};

// The same layer shapes, either BatchNorm type: for the checkpoint compatibility test.
template <class BatchNorm>
struct ConvBn : torch::nn::Module {
  ConvBn() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)));
    bn = register_module("bn", BatchNorm(torch::nn::BatchNorm2dOptions(4).eps(1e-3).momentum(0.03)));
  }
  torch::nn::Conv2d conv{nullptr};
  BatchNorm bn{nullptr};
};

std::vector<std::string> keys(const core::checkpoint::StateDict& state) { return state.keys(); }

}  // namespace

TEST_SUITE("distributed: sync batch norm") {

TEST_CASE("two ranks equal torch's BatchNorm2d on the whole batch: outputs, gradients, running stats") {
  compare_with_full_batch(2, false).print("world 2, contiguous");
}

TEST_CASE("channels-last shards give the same results and stay channels-last") {
  compare_with_full_batch(2, true).print("world 2, channels-last");
}

TEST_CASE("four ranks of two images each equal the whole batch") {
  compare_with_full_batch(4, false).print("world 4, contiguous");
}

// On CUDA the layers run PyTorch's synchronized-BatchNorm kernels (native_sync_batch_norm.hpp),
// two threads of this process standing for the ranks on one GPU: through those kernels'
// functions directly (native_rank_step says why not autograd), and through the layer and
// autograd for a world of one, whose backward needs no peer.
TEST_CASE("on CUDA: two ranks on the synchronized-BatchNorm kernels equal the whole batch") {
  if (!torch::cuda::is_available()) return;  // CUDA-only kernels: the CPU cases above cover the composed path
  const Setting cuda{torch::kCUDA, torch::kFloat32};
  const Setting cuda_half{torch::kCUDA, torch::kFloat16};  // autocast's: float16 activations, float32 statistics
  compare_with_full_batch(2, false, cuda, 1e-5, native_rank_step).print("CUDA, world 2, contiguous");
  compare_with_full_batch(2, true, cuda, 1e-5, native_rank_step).print("CUDA, world 2, channels-last");
  compare_with_full_batch(4, true, cuda, 1e-5, native_rank_step).print("CUDA, world 4, channels-last");
  compare_with_full_batch(2, true, cuda_half, 2e-3, native_rank_step).print("CUDA, world 2, float16");
  compare_with_full_batch(1, true, cuda).print("CUDA, world 1 through autograd, channels-last");
  compare_with_full_batch(1, true, cuda_half, 2e-3).print("CUDA, world 1 through autograd, float16");
}

TEST_CASE("a world of one equals torch's BatchNorm2d, for every option combination") {
  struct Case {
    const char* name;
    torch::nn::BatchNorm2dOptions options;
  };
  const std::vector<Case> cases = {
      {"momentum 0.03", layer_options()},
      {"momentum unset (cumulative average)", layer_options().momentum(c10::nullopt)},
      {"affine=false", layer_options().affine(false)},
      {"track_running_stats=false", layer_options().track_running_stats(false)},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    torch::manual_seed(3);
    torch::nn::BatchNorm2d reference(c.options);
    randomize(*reference);
    sdk::BatchNorm2d layer(c.options);
    copy_state(*reference, *layer);
    ThreadWorld world(1);
    distributed::synchronize_batch_norm(*layer, world.rank(0));
    double worst = 0;
    for (int s = 0; s < 3; ++s) {
      const auto step = make_step(6, 7);
      auto x_ref = step.input.clone().requires_grad_(true);
      auto x = step.input.clone().requires_grad_(true);
      reference->zero_grad();
      layer->zero_grad();
      const auto y_ref = reference->forward(x_ref);
      const auto y = layer->forward(x);
      (y_ref * step.upward).sum().backward();
      (y * step.upward).sum().backward();
      worst = std::max({worst, relative_error(y, y_ref), relative_error(x.grad(), x_ref.grad())});
      if (c.options.affine()) {
        worst = std::max({worst, relative_error(layer->weight.grad(), reference->weight.grad()),
                          relative_error(layer->bias.grad(), reference->bias.grad())});
      }
    }
    if (c.options.track_running_stats()) {
      worst = std::max({worst, relative_error(layer->running_mean, reference->running_mean),
                        relative_error(layer->running_var, reference->running_var)});
      CHECK(layer->num_batches_tracked.item<int64_t>() == reference->num_batches_tracked.item<int64_t>());
    } else {
      CHECK_FALSE(layer->running_mean.defined());
    }
    std::cout << "[sync_bn] world 1, " << c.name << ": worst relative error " << worst << "\n";
    CHECK(worst < 2e-6);
    CHECK(world.rank(0)->calls().all_reduce == 6);
  }
}

TEST_CASE("bfloat16 input (autocast) is normalised in float32 and returned as bfloat16") {
  torch::manual_seed(5);
  torch::nn::BatchNorm2d reference(layer_options());
  randomize(*reference);
  ThreadWorld world(2);
  std::vector<sdk::BatchNorm2d> layers;
  for (int r = 0; r < 2; ++r) {
    layers.emplace_back(layer_options());
    copy_state(*reference, *layers.back());
    distributed::synchronize_batch_norm(*layers.back(), world.rank(r));
  }

  const auto input = (torch::randn({kBatch, kChannels, 6, 6}) * 2.0 + 5.0).to(torch::kBFloat16);
  const auto expected = reference->forward(input.to(torch::kFloat));  // the same values, in float32
  std::vector<torch::Tensor> outputs(2);
  world.run([&](int rank, ThreadCollectives&) {
    const auto r = static_cast<std::size_t>(rank);
    outputs[r] = layers[r]->forward(input.narrow(0, rank * 4, 4));
  });
  CHECK((outputs[0].scalar_type() == torch::kBFloat16 && outputs[1].scalar_type() == torch::kBFloat16));
  const double error = max_abs_error(torch::cat(outputs), expected);
  std::cout << "[sync_bn] world 2, bfloat16 input: max abs error vs float32 reference " << error << "\n";
  CHECK(error < 0.05);  // bfloat16 keeps 8 bits: outputs of magnitude ~3 round by up to 1/64
  for (const auto& layer : layers) {
    CHECK(relative_error(layer->running_mean, reference->running_mean) < 1e-5);
    CHECK(relative_error(layer->running_var, reference->running_var) < 1e-5);
  }
}

TEST_CASE("evaluation uses the running statistics and calls no collective") {
  torch::manual_seed(11);
  torch::nn::BatchNorm2d reference(layer_options());
  randomize(*reference);
  {
    torch::NoGradGuard no_grad;
    reference->running_mean.copy_(torch::randn({kChannels}));
    reference->running_var.copy_(torch::rand({kChannels}) + 0.5);
  }
  sdk::BatchNorm2d layer(layer_options());
  copy_state(*reference, *layer);
  ThreadWorld world(1);
  distributed::synchronize_batch_norm(*layer, world.rank(0));
  reference->eval();
  layer->eval();
  const auto input = torch::randn({2, kChannels, 4, 4});
  CHECK(layer->forward(input).equal(reference->forward(input)));
  CHECK(world.rank(0)->calls().all_reduce == 0);
  CHECK(layer->num_batches_tracked.item<int64_t>() == 0);

  // Training without autograd (a no_grad forward) needs the forward all-reduce only.
  layer->train();
  {
    torch::NoGradGuard no_grad;
    layer->forward(input);
  }
  CHECK(world.rank(0)->calls().all_reduce == 1);
}

TEST_CASE("wrong inputs are refused with a core::Error") {
  ThreadWorld world(1);
  sdk::BatchNorm2d layer(layer_options());
  distributed::synchronize_batch_norm(*layer, world.rank(0));
  CHECK_THROWS_AS(layer->forward(torch::randn({2, kChannels, 4})), core::Error);
  CHECK_THROWS_AS(layer->forward(torch::randn({2, kChannels + 1, 4, 4})), core::Error);
  CHECK_THROWS_AS(layer->forward(torch::randn({1, kChannels, 1, 1})), core::Error);
  CHECK_THROWS_AS(distributed::synchronize_batch_norm(*layer, nullptr), core::Error);
  CHECK(world.rank(0)->calls().all_reduce == 0);
}

TEST_CASE("synchronize_batch_norm converts sdk::BatchNorm2d and names torch's BatchNorm it cannot reach") {
  Mixed model;
  ThreadWorld world(1);
  const auto report = distributed::synchronize_batch_norm(model, world.rank(0));
  CHECK(report.synchronized == 1);
  CHECK(report.not_synchronizable == 1);
  CHECK(report.not_synchronizable_names == std::vector<std::string>{"inner.plain"});
  CHECK(model.synced->synchronized());
  CHECK(distributed::count_batch_norm_layers(model) == 2);
  CHECK(distributed::desynchronize_batch_norm(model) == 1);
  CHECK_FALSE(model.synced->synchronized());

  // The model itself may be the layer.
  sdk::BatchNorm2d alone(4);
  CHECK(distributed::synchronize_batch_norm(*alone, world.rank(0)).synchronized == 1);
  CHECK(distributed::count_batch_norm_layers(*alone) == 1);
}

TEST_CASE("sdk::BatchNorm2d keeps torch's state_dict keys: checkpoints load both ways") {
  torch::manual_seed(1);
  ConvBn<torch::nn::BatchNorm2d> plain;
  ConvBn<sdk::BatchNorm2d> sdk_model;
  CHECK(plain.named_parameters().keys() == sdk_model.named_parameters().keys());
  CHECK(plain.named_buffers().keys() == sdk_model.named_buffers().keys());
  CHECK(sdk_model.named_buffers().keys() ==
        std::vector<std::string>{"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"});

  randomize(*plain.bn);
  const auto state = core::checkpoint::state_dict_of(plain);
  CHECK(keys(state) == keys(core::checkpoint::state_dict_of(sdk_model)));
  CHECK(core::checkpoint::load_state_dict_into(sdk_model, state, /*strict=*/true).complete());
  CHECK(sdk_model.bn->weight.equal(plain.bn->weight));
  const auto back = core::checkpoint::state_dict_of(sdk_model);
  for (const auto& item : state) CHECK(back[item.key()].equal(item.value()));

  // The module's text says what it is underneath, like torch's.
  std::ostringstream text;
  text << *sdk_model.bn;
  CHECK(text.str().find("BatchNorm2d(4") != std::string::npos);
}

TEST_CASE("clone() keeps the SDK type, the values and the synchronizer") {
  ThreadWorld world(1);
  sdk::BatchNorm2d layer(layer_options());
  randomize(*layer);
  distributed::synchronize_batch_norm(*layer, world.rank(0));
  const auto copy = std::dynamic_pointer_cast<sdk::BatchNorm2dImpl>(layer->clone());
  REQUIRE(copy);
  CHECK(copy->synchronized());
  CHECK(copy->weight.equal(layer->weight));
  CHECK(copy->weight.data_ptr() != layer->weight.data_ptr());
  CHECK(copy->weight.requires_grad());
  CHECK(copy->named_buffers().keys() == layer->named_buffers().keys());
}

TEST_CASE("every shipped family builds its BatchNorm from the SDK, across the plugin boundary") {
  const auto registry = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  ThreadWorld world(1);
  for (const auto& [family_name, size] : std::vector<std::pair<std::string, std::string>>{
           {"example", "n"}, {"yolo9", "t"}, {"yolox", "n"}, {"yolox", "s"}}) {
    CAPTURE(family_name);
    CAPTURE(size);
    auto detector = registry.require(family_name).family->create_detector({size, 3, 64});
    const auto layers = distributed::count_batch_norm_layers(*detector);
    const auto report = distributed::synchronize_batch_norm(*detector, world.rank(0));
    std::cout << "[sync_bn] " << family_name << size << ": " << report.synchronized << " of " << layers
              << " BatchNorm layers synchronised\n";
    CHECK(layers > 0);
    CHECK(report.synchronized == layers);
    CHECK(report.not_synchronizable == 0);
  }
}

TEST_CASE("a synchronised family in training is as accurate as torch's BatchNorm on one rank") {
  // Deep networks on tiny batches amplify float32 rounding (the last levels normalise 8 values
  // per channel), so both float32 forwards are measured against the same network in float64.
  // A fresh model's running mean is 0, so the shifted sums are not shifted yet: the synchronised
  // error may be a little above torch's (yolo9t: 1.0e-4 against 6.1e-5), hence the factor 3.
  const auto registry = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  ThreadWorld world(1);
  for (const std::string family_name : {"example", "yolo9", "yolox"}) {
    CAPTURE(family_name);
    torch::manual_seed(2);
    const auto& family = *registry.require(family_name).family;
    const sdk::ModelSpec spec{family_name == "example" ? "n" : family_name == "yolo9" ? "t" : "s", 3, 64};
    auto plain = family.create_detector(spec);
    auto synced = family.create_detector(spec);
    auto exact = family.create_detector(spec);
    const auto weights = core::checkpoint::state_dict_of(*plain);
    core::checkpoint::load_state_dict_into(*synced, weights, true);
    core::checkpoint::load_state_dict_into(*exact, weights, true);
    exact->to(torch::kDouble);
    distributed::synchronize_batch_norm(*synced, world.rank(0));
    plain->train();
    synced->train();
    exact->train();
    const auto images = torch::rand({2, 3, 64, 64});
    const auto reference = exact->forward_capturable(images.to(torch::kDouble));
    const auto torch_outputs = plain->forward_capturable(images);
    const auto sync_outputs = synced->forward_capturable(images);
    REQUIRE(sync_outputs.size() == reference.size());
    double torch_error = 0, sync_error = 0, between = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
      torch_error = std::max(torch_error, relative_error(torch_outputs[i], reference[i]));
      sync_error = std::max(sync_error, relative_error(sync_outputs[i], reference[i]));
      between = std::max(between, relative_error(sync_outputs[i], torch_outputs[i]));
    }
    std::cout << "[sync_bn] " << family_name << spec.size << " train-mode forward, world 1, relative error vs "
              << "float64: synchronised " << sync_error << ", torch BatchNorm " << torch_error
              << " (between them " << between << ")\n";
    CHECK(sync_error <= 3 * torch_error + 1e-6);
    CHECK(between < 1e-3);
  }
}

}  // TEST_SUITE
