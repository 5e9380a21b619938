// Our multi-tensor Sgd / AdamW against LibTorch's own torch::optim::SGD / AdamW / Adam, which
// implement torch.optim's semantics one parameter at a time.

#include "../torch_doctest.hpp"

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/adamw.hpp"
#include "libreyolo/core/optim/optimizer_choice.hpp"
#include "libreyolo/core/optim/sgd.hpp"

namespace optim = libreyolo::core::optim;

namespace {

// A small network written over bare tensors so two identical copies are trivial to make:
// 0 w1 [8,4] decayed, 1 bn_w [4] "BatchNorm", 2 b1 [4] bias, 3 w2 [4,3] decayed, 4 b2 [3] bias.
std::vector<torch::Tensor> make_params(const torch::Device& device) {
  torch::manual_seed(7);
  std::vector<torch::Tensor> p = {torch::randn({8, 4}), torch::randn({4}) + 1, torch::randn({4}),
                                  torch::randn({4, 3}), torch::randn({3})};
  for (auto& t : p) t = t.to(device).requires_grad_(true);
  return p;
}

std::vector<torch::Tensor> copy_of(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_(true));
  return out;
}

void backward(const std::vector<torch::Tensor>& p, const torch::Tensor& x) {
  auto h = torch::tanh(x.mm(p[0]) * p[1] + p[2]);
  auto out = h.mm(p[3]) + p[4];
  ((out * out).mean() + 0.1 * out.sum()).backward();
}

// pg0 BatchNorm, pg1 decayed weights, pg2 biases, as split_param_groups makes them.
std::vector<optim::ParamGroup> our_groups(const std::vector<torch::Tensor>& p, double wd,
                                          double no_wd = 0.0) {
  return {{"batchnorm", {p[1]}, no_wd}, {"decay", {p[0], p[3]}, wd}, {"bias", {p[2], p[4]}, no_wd}};
}

template <typename TorchOptions>
std::vector<torch::optim::OptimizerParamGroup> torch_groups(const std::vector<torch::Tensor>& p,
                                                            TorchOptions options, double wd,
                                                            double no_wd = 0.0) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  auto with = [&](std::vector<torch::Tensor> params, double decay) {
    auto o = std::make_unique<TorchOptions>(options);
    o->weight_decay(decay);
    groups.emplace_back(std::move(params), std::move(o));
  };
  with({p[1]}, no_wd);
  with({p[0], p[3]}, wd);
  with({p[2], p[4]}, no_wd);
  return groups;
}

double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  }
  return worst;
}

// Runs both optimizers for `steps` steps with an lr that changes every step (as the scheduler
// does) and with b2's gradient missing on step 2 (torch skips such parameters).
template <typename TorchOptions>
double run_both(optim::Optimizer& ours, std::vector<torch::Tensor>& mine,
                torch::optim::Optimizer& theirs, std::vector<torch::Tensor>& reference,
                const torch::Device& device, int steps = 6) {
  const auto x = torch::randn({16, 8}).to(device);
  const auto initial = copy_of(mine);
  for (int s = 0; s < steps; ++s) {
    const double lr = 0.01 * (1.0 + 0.25 * s);
    ours.set_lr(lr);
    for (auto& group : theirs.param_groups()) static_cast<TorchOptions&>(group.options()).lr(lr);

    ours.zero_grad();
    theirs.zero_grad();
    backward(mine, x);
    backward(reference, x);
    if (s == 2) {
      mine[4].mutable_grad().reset();
      reference[4].mutable_grad().reset();
    }
    ours.step();
    theirs.step();
  }
  // Every parameter moved (b2 too, on the steps where it had a gradient).
  for (size_t i = 0; i < mine.size(); ++i) {
    CHECK((mine[i] - initial[i]).abs().min().item<double>() > 1e-4);
  }
  return max_difference(mine, reference);
}

std::vector<torch::Device> devices() {
  std::vector<torch::Device> d{torch::kCPU};
  if (torch::cuda::is_available()) d.emplace_back(torch::kCUDA);
  return d;
}

}  // namespace

TEST_CASE("Sgd matches torch::optim::SGD (momentum, nesterov, per-group weight decay)") {
  for (const auto& device : devices()) {
    for (const bool nesterov : {true, false}) {
      CAPTURE(device.str());
      CAPTURE(nesterov);
      auto mine = make_params(device);
      auto reference = copy_of(mine);
      optim::Sgd ours(our_groups(mine, 0.05), {0.9, nesterov});
      torch::optim::SGD theirs(
          torch_groups(reference, torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(nesterov),
                       0.05),
          torch::optim::SGDOptions(0.01));
      CHECK(run_both<torch::optim::SGDOptions>(ours, mine, theirs, reference, device) < 1e-6);
    }
  }
}

TEST_CASE("Sgd without momentum is plain gradient descent with L2 decay") {
  auto mine = make_params(torch::kCPU);
  auto reference = copy_of(mine);
  optim::Sgd ours(our_groups(mine, 0.05), {0.0, false});
  torch::optim::SGD theirs(
      torch_groups(reference, torch::optim::SGDOptions(0.01), 0.05), torch::optim::SGDOptions(0.01));
  CHECK(run_both<torch::optim::SGDOptions>(ours, mine, theirs, reference, torch::kCPU) < 1e-6);
}

TEST_CASE("AdamW matches torch::optim::AdamW (decoupled decay, bias correction)") {
  for (const auto& device : devices()) {
    CAPTURE(device.str());
    auto mine = make_params(device);
    auto reference = copy_of(mine);
    // LibreYOLO's AdamW leaves pg0/pg2 at torch's default decay, 0.01.
    optim::AdamW ours(our_groups(mine, 0.05, 0.01), {0.9, 0.999, 1e-8});
    torch::optim::AdamW theirs(
        torch_groups(reference, torch::optim::AdamWOptions(0.01).betas({0.9, 0.999}).eps(1e-8),
                     0.05, 0.01),
        torch::optim::AdamWOptions(0.01));
    CHECK(run_both<torch::optim::AdamWOptions>(ours, mine, theirs, reference, device) < 1e-6);
  }
}

TEST_CASE("AdamW with decoupled_weight_decay=false matches torch::optim::Adam") {
  auto mine = make_params(torch::kCPU);
  auto reference = copy_of(mine);
  optim::AdamW ours(our_groups(mine, 0.05), {0.9, 0.999, 1e-8, /*decoupled=*/false});
  torch::optim::Adam theirs(
      torch_groups(reference, torch::optim::AdamOptions(0.01).betas({0.9, 0.999}), 0.05),
      torch::optim::AdamOptions(0.01));
  CHECK(run_both<torch::optim::AdamOptions>(ours, mine, theirs, reference, torch::kCPU) < 1e-6);
}

// make_named_optimizer(name, ...) against torch's own optimizer given the same options.
template <typename TorchOptimizer, typename TorchOptions>
double named_against_torch(const std::string& name, double momentum, bool nesterov, const TorchOptions& options) {
  auto mine = make_params(torch::kCPU);
  auto reference = copy_of(mine);
  auto ours = optim::make_named_optimizer(name, our_groups(mine, 0.05), momentum, nesterov);
  TorchOptimizer theirs(torch_groups(reference, options, 0.05), options);
  return run_both<TorchOptions>(*ours, mine, theirs, reference, torch::kCPU);
}

TEST_CASE("optimizer= names: adam is torch.optim.Adam, adamw AdamW, sgd SGD (momentum as beta1 or momentum)") {
  CHECK(optim::optimizer_class_name("sgd") == "SGD");
  CHECK(optim::optimizer_class_name("adam") == "Adam");
  CHECK(optim::optimizer_class_name("adamw") == "AdamW");
  CHECK_THROWS_AS(optim::optimizer_class_name("rmsprop"), std::invalid_argument);
  CHECK_THROWS_AS(optim::make_named_optimizer("rmsprop", {}, 0.9, false), std::invalid_argument);
  CHECK(named_against_torch<torch::optim::Adam>("adam", 0.8, false, torch::optim::AdamOptions(0.01).betas({0.8, 0.999})) <
        1e-6);
  CHECK(named_against_torch<torch::optim::AdamW>("adamw", 0.8, false,
                                                 torch::optim::AdamWOptions(0.01).betas({0.8, 0.999})) < 1e-6);
  CHECK(named_against_torch<torch::optim::SGD>("sgd", 0.9, true,
                                               torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true)) < 1e-6);
}

TEST_CASE("set_lr applies each group's lr multiplier") {
  auto p = make_params(torch::kCPU);
  auto groups = our_groups(p, 0.0);
  groups[1].lr_mult = 0.5;
  optim::Sgd sgd(std::move(groups));
  sgd.set_lr(0.02);
  CHECK(sgd.groups()[0].lr == doctest::Approx(0.02));
  CHECK(sgd.groups()[1].lr == doctest::Approx(0.01));
  CHECK(sgd.parameters().size() == 5);
}

// set_lr writes base_lr x lr_mult into each group; this checks that the step then uses it, in
// every path: Sgd's multi-tensor kernels, its fused kernel (CUDA, LibTorch >= 2.2), and AdamW's
// update and decoupled decay (p *= 1 - lr * wd). Reference: torch::optim given each group's lr
// directly. A step that ignored lr_mult moves the slow group four times too far.
namespace {

constexpr double kSlow = 0.25;

// {w1, bn_w, b1} at lr x 1, {w2, b2} at lr x kSlow, both with decay 0.05.
std::vector<optim::ParamGroup> fast_and_slow(const std::vector<torch::Tensor>& p) {
  return {{"fast", {p[0], p[1], p[2]}, 0.05, 1.0}, {"slow", {p[3], p[4]}, 0.05, kSlow}};
}

template <typename TorchOptions>
std::vector<torch::optim::OptimizerParamGroup> torch_fast_and_slow(const std::vector<torch::Tensor>& p,
                                                                   const TorchOptions& options) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{p[0], p[1], p[2]}, std::make_unique<TorchOptions>(options));
  groups.emplace_back(std::vector<torch::Tensor>{p[3], p[4]}, std::make_unique<TorchOptions>(options));
  return groups;
}

double run_with_lr_mult(optim::Optimizer& ours, std::vector<torch::Tensor>& mine, torch::optim::Optimizer& theirs,
                        std::vector<torch::Tensor>& reference, bool fused) {
  const auto x = torch::randn({16, 8}).to(mine[0].device());
  const auto no_inf = torch::zeros({}, x.options());
  for (int s = 0; s < 4; ++s) {
    const double lr = 0.01 * (1.0 + 0.5 * s);
    ours.set_lr(lr);
    theirs.param_groups()[0].options().set_lr(lr);
    theirs.param_groups()[1].options().set_lr(lr * kSlow);
    ours.zero_grad();
    theirs.zero_grad();
    backward(mine, x);
    backward(reference, x);
    if (fused) {
      REQUIRE(ours.step_unless_found_inf(no_inf));
    } else {
      ours.step();
    }
    theirs.step();
  }
  return max_difference(mine, reference);
}

}  // namespace

TEST_CASE("a group's lr_mult scales the update of Sgd (multi-tensor and fused) and AdamW") {
  for (const auto& device : devices()) {
    CAPTURE(device.str());
    for (const bool fused : {false, true}) {
      CAPTURE(fused);
      auto mine = make_params(device);
      auto reference = copy_of(mine);
      optim::Sgd ours(fast_and_slow(mine), {0.9, true});
      torch::optim::SGD theirs(
          torch_fast_and_slow(reference, torch::optim::SGDOptions(0.01).momentum(0.9).nesterov(true).weight_decay(0.05)),
          torch::optim::SGDOptions(0.01));
      // Asked before any gradient exists, so it updates nothing: is the fused kernel here?
      if (fused && !ours.step_unless_found_inf(torch::zeros({}, torch::TensorOptions().device(device)))) {
        continue;  // CPU, or a LibTorch before 2.2
      }
      CHECK(run_with_lr_mult(ours, mine, theirs, reference, fused) < 1e-6);
    }
    for (const bool fused : {false, true}) {
      CAPTURE(fused);
      auto mine = make_params(device);
      auto reference = copy_of(mine);
      optim::AdamW ours(fast_and_slow(mine));
      torch::optim::AdamW theirs(torch_fast_and_slow(reference, torch::optim::AdamWOptions(0.01).weight_decay(0.05)),
                                 torch::optim::AdamWOptions(0.01));
      if (fused && !ours.step_unless_found_inf(torch::zeros({}, torch::TensorOptions().device(device)))) {
        continue;  // CPU, or a LibTorch before 2.1
      }
      CHECK(run_with_lr_mult(ours, mine, theirs, reference, fused) < 1e-6);
    }
  }
}

TEST_CASE("fused AdamW: a found_inf step changes nothing and does not count; the state says so") {
  if (!torch::cuda::is_available()) return;  // the fused kernel is CUDA-only
  const torch::Device device(torch::kCUDA);
  auto mine = make_params(device);
  optim::AdamW ours(our_groups(mine, 0.05, 0.0));
  ours.set_lr(0.01);
  if (!ours.step_unless_found_inf(torch::zeros({}, torch::TensorOptions().device(device)))) return;  // LibTorch < 2.1
  const auto x = torch::randn({16, 8}).to(device);
  const auto found = torch::ones({}, x.options());
  const auto clear = torch::zeros({}, x.options());
  ours.zero_grad();
  backward(mine, x);
  REQUIRE(ours.step_unless_found_inf(clear));
  const auto before = copy_of(mine);
  ours.zero_grad();
  backward(mine, x);
  REQUIRE(ours.step_unless_found_inf(found));  // skipped on the device
  CHECK(max_difference(mine, before) == 0.0);
  const auto state = ours.state();
  REQUIRE(!state.empty());
  CHECK(state[0].first == "state.0.step");
  CHECK(state[0].second.item<float>() == 1.0f);  // the skipped step did not count
}

TEST_CASE("optimizer state round-trips through state()/load_state()") {
  const auto x = torch::randn({16, 8});
  auto train = [&](optim::Optimizer& opt, std::vector<torch::Tensor>& p, int steps) {
    for (int s = 0; s < steps; ++s) {
      opt.zero_grad();
      backward(p, x);
      opt.step();
    }
  };
  SUBCASE("Sgd") {
    auto a = make_params(torch::kCPU);
    optim::Sgd first(our_groups(a, 0.05), {0.9, true});
    first.set_lr(0.01);
    train(first, a, 3);
    auto b = copy_of(a);
    optim::Sgd second(our_groups(b, 0.05), {0.9, true});
    second.set_lr(0.01);
    const auto saved = first.state();
    CHECK(saved.size() == 5);
    CHECK(saved[0].first == "state.0.momentum_buffer");
    second.load_state(saved);
    train(first, a, 2);
    train(second, b, 2);
    CHECK(max_difference(a, b) == 0.0);
  }
  SUBCASE("AdamW") {
    auto a = make_params(torch::kCPU);
    optim::AdamW first(our_groups(a, 0.05));
    first.set_lr(0.01);
    train(first, a, 3);
    auto b = copy_of(a);
    optim::AdamW second(our_groups(b, 0.05));
    second.set_lr(0.01);
    const auto saved = first.state();
    CHECK(saved.size() == 15);
    CHECK(saved[0].first == "state.0.step");
    CHECK(saved[0].second.item<float>() == 3.f);
    second.load_state(saved);
    train(first, a, 2);
    train(second, b, 2);
    CHECK(max_difference(a, b) == 0.0);
  }
}

TEST_CASE("optimizers refuse what torch.optim refuses") {
  auto p = make_params(torch::kCPU);
  CHECK_THROWS_AS(optim::Sgd(our_groups(p, 0.0), {0.0, true}), libreyolo::core::Error);
  const auto not_a_leaf = p[0] * 2;
  CHECK_THROWS_AS(optim::Sgd({{"x", {not_a_leaf}}}), libreyolo::core::Error);
  CHECK_THROWS_AS(optim::Sgd({{"x", {torch::zeros({2}, torch::kLong)}}}), libreyolo::core::Error);
}

// The whole-step graph needs the lr on the device; on the CPU there is none to read, so
// use_device_lr refuses, changes nothing, and set_lr keeps writing the host lr alone.
TEST_CASE("Sgd::use_device_lr refuses on the CPU; set_lr still sets each group's lr") {
  auto p = make_params(torch::kCPU);
  auto groups = our_groups(p, 0.05);
  groups[2].lr_mult = 0.25;
  optim::Sgd sgd(std::move(groups), {0.9, true});
  CHECK_FALSE(sgd.use_device_lr());
  CHECK_FALSE(sgd.has_device_lr());
  for (const double base : {0.02, 0.005}) {
    sgd.set_lr(base);
    CHECK(sgd.groups()[0].lr == doctest::Approx(base));
    CHECK(sgd.groups()[1].lr == doctest::Approx(base));
    CHECK(sgd.groups()[2].lr == doctest::Approx(base * 0.25));
    for (const auto& group : sgd.groups()) CHECK_FALSE(group.lr_on_device.defined());
  }
  CHECK_FALSE(sgd.has_device_lr());
}
