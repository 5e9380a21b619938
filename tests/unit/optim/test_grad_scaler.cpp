// amp::GradScaler: torch.amp.GradScaler's dynamic loss scaling. On CPU the scaler runs its
// tensor-op fallback; where CUDA is present the same cases run through the _amp_* kernels.

#include "../torch_doctest.hpp"

#include "libreyolo/core/amp/grad_scaler.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/sgd.hpp"

namespace amp = libreyolo::core::amp;
namespace optim = libreyolo::core::optim;

namespace {

std::vector<torch::Device> devices() {
  std::vector<torch::Device> d{torch::kCPU};
  if (torch::cuda::is_available()) d.emplace_back(torch::kCUDA);
  return d;
}

struct Setup {
  explicit Setup(const torch::Device& device)
      : weight(torch::ones({3}, torch::TensorOptions().device(device).requires_grad(true))),
        sgd({{"decay", {weight}, 0.0}}, {0.0, false}) {
    sgd.set_lr(0.1);
  }
  // The gradient backward would leave for the scaled loss `scale * sum(g * w)`.
  void backward(const amp::GradScaler& scaler, const torch::Tensor& g) {
    sgd.zero_grad();
    scaler.scale((g.to(weight.device()) * weight).sum()).backward();
  }
  torch::Tensor weight;
  optim::Sgd sgd;
};

}  // namespace

TEST_CASE("GradScaler: a clean step unscales the gradients and steps") {
  for (const auto& device : devices()) {
    CAPTURE(device.str());
    Setup s(device);
    amp::GradScaler scaler(device);
    CHECK(scaler.current_scale() == 65536.0);
    const auto loss = torch::full({}, 2.0).to(device);
    CHECK(scaler.scale(loss).item<double>() == 2.0 * 65536);

    s.backward(scaler, torch::tensor({1.f, 2.f, 3.f}));
    scaler.unscale(s.sgd);  // before clipping, as the trainer does
    CHECK(torch::equal(s.weight.grad().cpu(), torch::tensor({1.f, 2.f, 3.f})));
    CHECK(scaler.step(s.sgd));
    scaler.update();
    CHECK(torch::allclose(s.weight.detach().cpu(), torch::tensor({0.9f, 0.8f, 0.7f})));
    CHECK(scaler.current_scale() == 65536.0);
    CHECK(scaler.state().growth_tracker == 1);
  }
}

TEST_CASE("GradScaler: an inf or NaN gradient skips the step and halves the scale") {
  for (const auto& device : devices()) {
    for (const float bad : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
      CAPTURE(device.str());
      Setup s(device);
      amp::GradScaler scaler(device);
      s.backward(scaler, torch::tensor({1.f, 2.f, 3.f}));
      scaler.step(s.sgd);
      scaler.update();  // one clean step: tracker 1

      s.backward(scaler, torch::tensor({1.f, bad, 3.f}));
      const auto before = s.weight.detach().clone();
      CHECK_FALSE(scaler.step(s.sgd));
      CHECK(scaler.found_inf().item<float>() == 1.f);
      scaler.update();
      CHECK(torch::equal(s.weight.detach(), before));  // skipped
      CHECK(scaler.current_scale() == 32768.0);
      CHECK(scaler.state().growth_tracker == 0);        // the clean run starts over
      CHECK(scaler.found_inf().item<float>() == 0.f);  // ready for the next step
    }
  }
}

TEST_CASE("GradScaler: growth_interval clean steps in a row double the scale") {
  for (const auto& device : devices()) {
    CAPTURE(device.str());
    Setup s(device);
    amp::GradScaler scaler(device, {true, 1024.0, 2.0, 0.5, /*growth_interval=*/3});
    for (int i = 0; i < 2; ++i) {
      s.backward(scaler, torch::tensor({1.f, 1.f, 1.f}));
      scaler.step(s.sgd);
      scaler.update();
    }
    CHECK(scaler.current_scale() == 1024.0);
    s.backward(scaler, torch::tensor({1.f, 1.f, 1.f}));
    scaler.step(s.sgd);
    scaler.update();
    CHECK(scaler.current_scale() == 2048.0);
    CHECK(scaler.state().growth_tracker == 0);
  }
}

TEST_CASE("GradScaler: 2000 clean steps with the default interval double 65536") {
  const torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Setup s(device);
  amp::GradScaler scaler(device);
  s.weight.mutable_grad() = torch::zeros_like(s.weight);
  for (int i = 0; i < 1999; ++i) {
    s.weight.mutable_grad().fill_(65536.0);  // as a scaled backward would leave it
    scaler.step(s.sgd);
    scaler.update();
  }
  CHECK(scaler.current_scale() == 65536.0);
  s.weight.mutable_grad().fill_(65536.0);
  scaler.step(s.sgd);
  scaler.update();
  CHECK(scaler.current_scale() == 131072.0);
}

TEST_CASE("GradScaler: disabled (bfloat16 / float32) is a no-op with the same interface") {
  Setup s(torch::kCPU);
  amp::GradScaler scaler(torch::kCPU, {/*enabled=*/false});
  CHECK_FALSE(scaler.enabled());
  const auto loss = torch::full({}, 2.0);
  CHECK(scaler.scale(loss).unsafeGetTensorImpl() == loss.unsafeGetTensorImpl());
  s.backward(scaler, torch::tensor({1.f, 1.f, 1.f}));
  scaler.unscale(s.sgd);
  CHECK(torch::equal(s.weight.grad(), torch::ones({3})));
  CHECK(scaler.step(s.sgd));
  scaler.update();
  CHECK(torch::allclose(s.weight.detach(), torch::full({3}, 0.9)));
  CHECK(scaler.current_scale() == 1.0);
}

TEST_CASE("GradScaler: misuse is reported") {
  Setup s(torch::kCPU);
  amp::GradScaler scaler(torch::kCPU);
  CHECK_THROWS_AS(scaler.update(), libreyolo::core::Error);  // nothing unscaled yet
  s.backward(scaler, torch::tensor({1.f, 1.f, 1.f}));
  scaler.unscale(s.sgd);
  CHECK_THROWS_AS(scaler.unscale(s.sgd), libreyolo::core::Error);
  scaler.step(s.sgd);  // does not unscale again
  scaler.update();
  CHECK_THROWS_AS(amp::GradScaler(torch::kCPU, {true, 65536.0, 0.5}), libreyolo::core::Error);

  scaler.load_state({1024.0, 7});
  CHECK(scaler.state().scale == 1024.0);
  CHECK(scaler.state().growth_tracker == 7);
}
