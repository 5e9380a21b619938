// sdk::FrozenBatchNorm2d: LibreYOLO's FrozenBatchNorm2d (RT-DETR, D-FINE backbones) in
// LibTorch. Its forward against the formula and against BatchNorm2d in evaluation, buffers
// only, LibreYOLO's state-dict keys, BatchNorm2d weights loading into it strictly, and the host
// never taking it for a trainable or synchronisable BatchNorm.

#include "../torch_doctest.hpp"

#include <memory>
#include <sstream>

#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/distributed/sync_batch_norm.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/param_groups.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/frozen_batch_norm.hpp"

namespace ck = libreyolo::core::checkpoint;
namespace sdk = libreyolo::sdk;

namespace {

constexpr int64_t kChannels = 3;

// Values away from the identity so every buffer matters; running_var includes a zero, which
// only eps keeps finite.
void randomize(sdk::FrozenBatchNorm2dImpl& layer) {
  torch::NoGradGuard no_grad;
  layer.weight.copy_(torch::rand({kChannels}) + 0.5);
  layer.bias.copy_(torch::randn({kChannels}));
  layer.running_mean.copy_(torch::randn({kChannels}) * 3);
  layer.running_var.copy_(torch::tensor({0.0f, 0.3f, 4.0f}));
}

// A conv and the frozen norm after it, as a frozen backbone stage holds them.
struct StageImpl : torch::nn::Module {
  StageImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(kChannels, kChannels, 1).bias(false)));
    norm = register_module("norm", sdk::FrozenBatchNorm2d(kChannels));
  }
  torch::nn::Conv2d conv{nullptr};
  sdk::FrozenBatchNorm2d norm{nullptr};
};

// Collectives that are never called: synchronize_batch_norm only hands them to layers.
struct UnusedCollectives final : libreyolo::core::distributed::Collectives {
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void all_reduce_sum(torch::Tensor&) override { FAIL("unexpected collective"); }
  std::unique_ptr<libreyolo::core::distributed::PendingCollective> start_all_reduce_sum(torch::Tensor&) override {
    FAIL("unexpected collective");
    return nullptr;
  }
  void broadcast(torch::Tensor&, int) override { FAIL("unexpected collective"); }
  void barrier() override { FAIL("unexpected collective"); }
};

}  // namespace

TEST_CASE("FrozenBatchNorm2d: y = x * w / sqrt(var + eps) + (b - mean * w / sqrt(var + eps))") {
  torch::manual_seed(3);
  sdk::FrozenBatchNorm2d layer(kChannels);
  CHECK(layer->eps() == 1e-5);  // LibreYOLO's (and torchvision's) default
  CHECK(layer->num_features() == kChannels);
  randomize(*layer);
  const auto x = torch::randn({2, kChannels, 5, 6});
  const auto y = layer(x);

  // The formula in double precision, per channel.
  const auto d = [](const torch::Tensor& t) { return t.to(torch::kDouble).reshape({1, -1, 1, 1}); };
  const auto scale = d(layer->weight) / torch::sqrt(d(layer->running_var) + 1e-5);
  const auto expected = x.to(torch::kDouble) * scale + (d(layer->bias) - d(layer->running_mean) * scale);
  CHECK((y.scalar_type() == torch::kFloat));
  CHECK(torch::isfinite(y).all().item<bool>());
  // eps alone scales channel 0 by ~316: float32 rounding of terms near 1e3 is ~1e-4.
  CHECK(torch::allclose(y.to(torch::kDouble), expected, /*rtol=*/1e-5, /*atol=*/1e-3));

  // The float32 operations LibreYOLO's forward performs, in its order: bitwise equal.
  const auto w = layer->weight.reshape({1, -1, 1, 1});
  const auto s = w * (layer->running_var.reshape({1, -1, 1, 1}) + 1e-5).rsqrt();
  const auto shift = layer->bias.reshape({1, -1, 1, 1}) - layer->running_mean.reshape({1, -1, 1, 1}) * s;
  CHECK(torch::equal(y, x * s + shift));
}

TEST_CASE("FrozenBatchNorm2d equals BatchNorm2d in evaluation, in training mode too") {
  torch::manual_seed(4);
  sdk::FrozenBatchNorm2d frozen(kChannels);
  randomize(*frozen);
  {
    torch::NoGradGuard no_grad;
    frozen->running_var.copy_(torch::rand({kChannels}) + 0.5);  // the two formulas round alike here
  }
  torch::nn::BatchNorm2d reference(torch::nn::BatchNorm2dOptions(kChannels).eps(1e-5));
  {
    torch::NoGradGuard no_grad;
    reference->weight.copy_(frozen->weight);
    reference->bias.copy_(frozen->bias);
    reference->running_mean.copy_(frozen->running_mean);
    reference->running_var.copy_(frozen->running_var);
  }
  reference->eval();
  frozen->train();  // frozen: training changes nothing
  const auto x = torch::randn({4, kChannels, 3, 3});
  const auto before = frozen->running_mean.clone();
  CHECK(torch::allclose(frozen(x), reference(x), 1e-5, 1e-5));
  CHECK(torch::equal(frozen->running_mean, before));
}

TEST_CASE("FrozenBatchNorm2d: buffers only; gradients reach the input and nothing else") {
  sdk::FrozenBatchNorm2d layer(kChannels);
  CHECK(layer->parameters().empty());
  CHECK(layer->buffers().size() == 4);
  for (const auto& buffer : layer->buffers()) CHECK_FALSE(buffer.requires_grad());

  const auto x = torch::randn({1, kChannels, 2, 2}, torch::requires_grad());
  layer(x).sum().backward();
  CHECK(x.grad().defined());
  CHECK_FALSE(layer->weight.grad().defined());
}

TEST_CASE("FrozenBatchNorm2d: LibreYOLO's state-dict keys, no num_batches_tracked") {
  sdk::FrozenBatchNorm2d layer(kChannels);
  CHECK(ck::state_dict_of(*layer).keys() == std::vector<std::string>{"weight", "bias", "running_mean", "running_var"});
  StageImpl stage;
  CHECK(ck::state_dict_of(stage).keys() == std::vector<std::string>{"conv.weight", "norm.weight", "norm.bias",
                                                                     "norm.running_mean", "norm.running_var"});
}

TEST_CASE("FrozenBatchNorm2d loads a BatchNorm2d's weights strictly, num_batches_tracked dropped") {
  torch::manual_seed(5);
  torch::nn::BatchNorm2d bn(kChannels);
  bn->train();
  bn(torch::randn({8, kChannels, 4, 4}) * 2 + 1);  // running statistics away from the identity
  {
    torch::NoGradGuard no_grad;
    bn->weight.copy_(torch::rand({kChannels}) + 0.5);
    bn->bias.copy_(torch::randn({kChannels}));
  }
  bn->eval();
  const auto bn_state = ck::state_dict_of(*bn);
  REQUIRE(bn_state.find("num_batches_tracked") != nullptr);

  sdk::FrozenBatchNorm2d layer(kChannels);
  const auto report = ck::load_state_dict_into(*layer, bn_state, /*strict=*/true);
  CHECK(report.loaded == 4);
  CHECK(report.complete());
  const auto x = torch::randn({2, kChannels, 3, 3});
  CHECK(torch::allclose(layer(x), bn(x), 1e-5, 1e-5));

  // Nested, under the layer's own path; a counter under any other path is still unexpected.
  StageImpl stage;
  ck::StateDict state;
  state.insert("conv.weight", stage.conv->weight.detach().clone());
  for (const auto& item : bn_state) state.insert("norm." + item.key(), item.value());
  CHECK(ck::load_state_dict_into(stage, state, /*strict=*/true).loaded == 5);
  CHECK(torch::equal(stage.norm->running_var, bn->running_var));
  state.insert("conv.num_batches_tracked", torch::tensor(1));
  CHECK_THROWS_AS(ck::load_state_dict_into(stage, state, /*strict=*/true), libreyolo::core::Error);
  const auto loose = ck::load_state_dict_into(stage, state, /*strict=*/false);
  CHECK(loose.unexpected == std::vector<std::string>{"conv.num_batches_tracked"});
}

TEST_CASE("FrozenBatchNorm2d is no BatchNorm to the optimizer split or sync_bn") {
  CHECK_FALSE(libreyolo::core::optim::is_batchnorm(*sdk::FrozenBatchNorm2d(kChannels)));
  CHECK(libreyolo::core::optim::is_batchnorm(*sdk::BatchNorm2d(kChannels)));

  StageImpl stage;
  const auto split = libreyolo::core::optim::split_param_groups(stage, 5e-4);
  REQUIRE(split.groups.size() == 1);
  CHECK(split.groups[0].name == "decay");  // the conv weight; the norm has nothing to train

  // One frozen and one trainable BatchNorm: only the trainable one counts, and synchronises.
  auto model = torch::nn::Sequential(sdk::FrozenBatchNorm2d(kChannels), sdk::BatchNorm2d(kChannels));
  CHECK(libreyolo::core::distributed::count_batch_norm_layers(*model) == 1);
  const auto report = libreyolo::core::distributed::synchronize_batch_norm(*model, std::make_shared<UnusedCollectives>());
  CHECK(report.synchronized == 1);
  CHECK(report.not_synchronizable == 0);
}

TEST_CASE("FrozenBatchNorm2d: clone keeps type and values; dtype moves; shape errors") {
  torch::manual_seed(6);
  sdk::FrozenBatchNorm2d layer(kChannels, 1e-3);
  randomize(*layer);
  const auto copy = std::dynamic_pointer_cast<sdk::FrozenBatchNorm2dImpl>(layer->clone());
  REQUIRE(copy != nullptr);
  CHECK(copy->eps() == 1e-3);
  CHECK(torch::equal(copy->running_var, layer->running_var));
  CHECK(copy->running_var.data_ptr() != layer->running_var.data_ptr());
  CHECK(copy->named_buffers().size() == 4);

  layer->to(torch::kDouble);
  CHECK((layer->running_mean.scalar_type() == torch::kDouble));
  CHECK((layer(torch::randn({1, kChannels, 2, 2}, torch::kDouble)).scalar_type() == torch::kDouble));

  CHECK_THROWS_AS(layer(torch::randn({1, kChannels + 1, 2, 2}, torch::kDouble)), c10::Error);
  CHECK_THROWS_AS(layer(torch::randn({kChannels, 2}, torch::kDouble)), c10::Error);

  std::ostringstream text;
  text << *layer;
  CHECK(text.str().find("FrozenBatchNorm2d(3, eps=0.001)") != std::string::npos);
}
