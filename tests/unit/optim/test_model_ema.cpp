// ModelEMA: decay ramp, the multi-tensor update, state names, loading into a module.

#include "../torch_doctest.hpp"

#include <cmath>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/model_ema.hpp"

namespace optim = libreyolo::core::optim;

namespace {

struct Net : torch::nn::Module {
  Net() {
    conv = register_module("conv", torch::nn::Conv2d(2, 3, 1));
    bn = register_module("bn", torch::nn::BatchNorm2d(3));
  }
  torch::Tensor forward(const torch::Tensor& x) { return bn(conv(x)); }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};

const torch::Tensor& find(const optim::ModelEma& ema, const std::string& name) {
  for (const auto& [key, value] : ema.state()) {
    if (key == name) return value;
  }
  throw std::runtime_error("no " + name);
}

}  // namespace

TEST_CASE("ModelEma: decay ramps as decay * (1 - exp(-updates / tau))") {
  Net net;
  optim::ModelEma ema(net, {0.9998, 2000, {}});
  CHECK(ema.decay_at(1) == doctest::Approx(0.9998 * (1 - std::exp(-1.0 / 2000))));
  CHECK(ema.decay_at(2000) == doctest::Approx(0.9998 * (1 - std::exp(-1.0))));
  CHECK(ema.decay_at(1000000) == doctest::Approx(0.9998));

  optim::ModelEma constant(net, {0.99, 0, {}});  // tau <= 0: no ramp
  CHECK(constant.decay_at(1) == 0.99);

  ema.set_decay(0.9);  // D-FINE's restart: constant from now on
  CHECK(ema.decay_at(1) == 0.9);
  ema.set_decay(0.9, /*ramp=*/true);
  CHECK(ema.decay_at(2000) == doctest::Approx(0.9 * (1 - std::exp(-1.0))));
}

TEST_CASE("ModelEma: state has the model's names; copies do not require grad") {
  Net net;
  optim::ModelEma ema(net);
  std::vector<std::string> names;
  for (const auto& [name, value] : ema.state()) {
    names.push_back(name);
    CHECK_FALSE(value.requires_grad());
  }
  const std::vector<std::string> expected = {"conv.weight",     "conv.bias",   "bn.weight",
                                             "bn.bias",         "bn.running_mean", "bn.running_var",
                                             "bn.num_batches_tracked"};
  CHECK(names == expected);
  CHECK(find(ema, "conv.weight").data_ptr() != net.conv->weight.data_ptr());  // a copy
  CHECK(torch::equal(find(ema, "conv.weight"), net.conv->weight));
}

TEST_CASE("ModelEma: update is ema = d * ema + (1 - d) * model; integer buffers are copied") {
  Net net;
  optim::ModelEma ema(net, {0.9, 1.0, {}});
  const auto before_w = find(ema, "conv.weight").clone();
  const auto before_rm = find(ema, "bn.running_mean").clone();

  // A training forward moves the BatchNorm statistics; then change a weight.
  net.train();
  net.forward(torch::randn({4, 2, 5, 5}) + 3);
  {
    torch::NoGradGuard no_grad;
    net.conv->weight.add_(1.0);
  }
  ema.update(net);
  const double d = 0.9 * (1 - std::exp(-1.0));
  CHECK(ema.updates() == 1);
  CHECK(torch::allclose(find(ema, "conv.weight"), d * before_w + (1 - d) * net.conv->weight,
                        1e-6, 1e-6));
  CHECK(torch::allclose(find(ema, "bn.running_mean"),
                        d * before_rm + (1 - d) * net.bn->running_mean, 1e-6, 1e-6));
  CHECK(find(ema, "bn.num_batches_tracked").item<int64_t>() == 1);

  // Many updates converge on a model that stops changing.
  for (int i = 0; i < 200; ++i) ema.update(net);
  CHECK(torch::allclose(find(ema, "conv.weight"), net.conv->weight, 1e-5, 1e-5));
}

TEST_CASE("ModelEma: copy_to loads the EMA weights into another module; load_state resumes") {
  Net net;
  optim::ModelEma ema(net, {0.5, 0, {}});
  {
    torch::NoGradGuard no_grad;
    net.conv->weight.mul_(3.0);
  }
  ema.update(net);

  Net eval_copy;
  ema.copy_to(eval_copy);
  CHECK(torch::equal(eval_copy.conv->weight, find(ema, "conv.weight")));
  CHECK(torch::equal(eval_copy.bn->running_var, find(ema, "bn.running_var")));

  Net other;
  optim::ModelEma resumed(other, {0.5, 0, {}}, /*updates=*/1);
  resumed.load_state(ema.state());
  CHECK(resumed.updates() == 1);
  CHECK(torch::equal(find(resumed, "conv.weight"), find(ema, "conv.weight")));
}

TEST_CASE("ModelEma: a model of another shape is refused") {
  Net net;
  optim::ModelEma ema(net);
  torch::nn::Linear linear(3, 3);
  CHECK_THROWS_AS(ema.update(*linear), libreyolo::core::Error);
  CHECK_THROWS_AS(ema.copy_to(*linear), libreyolo::core::Error);
}

TEST_CASE("ModelEma: constant tensors (freeze=) are held as made, the others averaged") {
  Net net;
  optim::ModelEmaOptions options;
  options.decay = 0.9;
  options.tau = 0;
  options.constant = {"conv.weight", "bn.running_mean"};
  optim::ModelEma ema(net, options);
  const auto weight = find(ema, "conv.weight").clone();
  const auto mean = find(ema, "bn.running_mean").clone();
  const auto bias = find(ema, "conv.bias").clone();
  {
    torch::NoGradGuard no_grad;  // the model moves everywhere; the EMA must not follow the held two
    net.conv->weight.add_(1.0);
    net.conv->bias.add_(1.0);
    net.bn->running_mean.add_(1.0);
  }
  for (int i = 0; i < 3; ++i) ema.update(net);
  CHECK(torch::equal(find(ema, "conv.weight"), weight));
  CHECK(torch::equal(find(ema, "bn.running_mean"), mean));
  CHECK(find(ema, "conv.bias").allclose(bias + (1 - 0.9 * 0.9 * 0.9)));
  // Names stay in the state, in order: checkpoints and copy_to see every tensor.
  CHECK(ema.state().size() == 7);
}

TEST_CASE("ModelEma: averaging a constant with itself drifts by rounding, which holding avoids") {
  torch::manual_seed(7);
  torch::nn::Linear frozen(64, 64);
  optim::ModelEma averaged(*frozen, {0.9998, 2000, {}});
  for (int i = 0; i < 50; ++i) averaged.update(*frozen);
  // d * x + (1 - d) * x is not x in float32 on most CPUs; one whose kernels fuse the two (the GPU
  // machine's) keeps x, so this is what happens here, not a requirement.
  MESSAGE("averaging a constant with itself drifted: ", !torch::equal(find(averaged, "weight"), frozen->weight));

  optim::ModelEmaOptions options;
  options.constant = {"weight", "bias"};
  optim::ModelEma held(*frozen, options);
  for (int i = 0; i < 50; ++i) held.update(*frozen);
  CHECK(torch::equal(find(held, "weight"), frozen->weight));
}

namespace {

// `to` gets `from`'s parameters and buffers: two identical models for two EMAs.
void copy_weights(Net& from, Net& to) {
  torch::NoGradGuard no_grad;
  for (const auto& item : from.named_parameters()) to.named_parameters()[item.key()].copy_(item.value());
  for (const auto& item : from.named_buffers()) to.named_buffers()[item.key()].copy_(item.value());
}

}  // namespace

// The whole-step graph records advance() and apply() apart (advance on the host before the
// replay, apply inside it); the two halves must add up to update() exactly, or a recorded run
// would drift from an eager one. Two EMAs of two identical models, moved the same way.
TEST_CASE("ModelEma: advance() then apply() is update(), bit for bit; no device decay on the CPU") {
  torch::manual_seed(3);
  Net eager_net, split_net;
  copy_weights(eager_net, split_net);
  optim::ModelEma eager(eager_net, {0.9, 3.0, {}});
  optim::ModelEma split(split_net, {0.9, 3.0, {}});
  CHECK_FALSE(split.use_device_decay());  // the EMA lives on the CPU: nothing to read on a device
  const auto initial = find(split, "conv.weight").clone();

  for (int i = 0; i < 4; ++i) {
    const auto x = torch::randn({4, 2, 5, 5}) + i;
    for (Net* net : {&eager_net, &split_net}) {  // the same training forward and weight change for both
      net->train();
      net->forward(x);
      torch::NoGradGuard no_grad;
      net->conv->weight.mul_(1.5).add_(0.25);
    }
    eager.update(eager_net);
    split.advance();
    split.apply(split_net);
    CHECK(split.updates() == eager.updates());
  }
  CHECK(split.updates() == 4);
  REQUIRE(split.state().size() == eager.state().size());
  for (size_t i = 0; i < eager.state().size(); ++i) {
    CAPTURE(eager.state()[i].first);
    CHECK(torch::equal(split.state()[i].second, eager.state()[i].second));
  }
  // The EMA moved, and is not the model: the comparison above compared averages.
  CHECK_FALSE(torch::equal(find(split, "conv.weight"), initial));
  CHECK_FALSE(torch::equal(find(split, "conv.weight"), split_net.conv->weight));
}
