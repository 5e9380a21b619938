// zero_grad and max-norm clipping, against torch::nn::utils::clip_grad_norm_.

#include "../torch_doctest.hpp"

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/grad_utils.hpp"

namespace optim = libreyolo::core::optim;

namespace {

std::vector<torch::Tensor> params_with_grads(double grad_scale) {
  torch::manual_seed(3);
  std::vector<torch::Tensor> params = {torch::randn({5, 3}, torch::requires_grad()),
                                       torch::randn({7}, torch::requires_grad()),
                                       torch::randn({2}, torch::requires_grad())};
  for (size_t i = 0; i < 2; ++i) params[i].mutable_grad() = torch::randn_like(params[i]) * grad_scale;
  return params;  // the last one has no gradient
}

}  // namespace

TEST_CASE("zero_grad: set_to_none drops gradients; otherwise zeroes them in place") {
  auto params = params_with_grads(1.0);
  const void* storage = params[0].grad().data_ptr();
  optim::zero_grad(params, /*set_to_none=*/false);
  CHECK(params[0].grad().data_ptr() == storage);
  CHECK(params[0].grad().abs().sum().item<double>() == 0.0);
  CHECK(params[1].grad().abs().sum().item<double>() == 0.0);
  CHECK_FALSE(params[2].grad().defined());

  optim::zero_grad(params);
  for (const auto& p : params) CHECK_FALSE(p.grad().defined());
  optim::zero_grad(params, false);  // nothing to zero: fine
}

TEST_CASE("clip_grad_norm matches torch::nn::utils::clip_grad_norm_") {
  for (const double scale : {0.01, 1.0, 100.0}) {
    CAPTURE(scale);
    auto ours = params_with_grads(scale);
    auto theirs = params_with_grads(scale);
    const auto total = optim::clip_grad_norm(ours, 1.5);
    const double expected = torch::nn::utils::clip_grad_norm_(theirs, 1.5);
    CHECK(total.dim() == 0);
    CHECK((total.scalar_type() == torch::kFloat32));
    CHECK(total.item<double>() == doctest::Approx(expected).epsilon(1e-6));
    for (size_t i = 0; i < 2; ++i) {
      CHECK((ours[i].grad() - theirs[i].grad()).abs().max().item<double>() < 1e-6);
    }
    const double clipped = torch::cat({ours[0].grad().flatten(), ours[1].grad().flatten()}).norm().item<double>();
    CHECK(clipped <= 1.5 + 1e-5);
  }
}

TEST_CASE("clip_grad_norm: the total norm by hand, and edge cases") {
  std::vector<torch::Tensor> params = {torch::zeros({2}, torch::requires_grad()),
                                       torch::zeros({1}, torch::requires_grad())};
  params[0].mutable_grad() = torch::tensor({3.f, 0.f});
  params[1].mutable_grad() = torch::tensor({4.f});
  const auto total = optim::clip_grad_norm(params, 1.0);
  CHECK(total.item<double>() == doctest::Approx(5.0));
  CHECK(params[0].grad()[0].item<double>() == doctest::Approx(3.0 / (5.0 + 1e-6)));
  CHECK(params[1].grad()[0].item<double>() == doctest::Approx(4.0 / (5.0 + 1e-6)));

  // Below the limit: untouched (the coefficient is clamped to 1).
  params[0].mutable_grad() = torch::tensor({0.3f, 0.f});
  params[1].mutable_grad() = torch::tensor({0.4f});
  optim::clip_grad_norm(params, 1.0);
  CHECK(params[0].grad()[0].item<float>() == 0.3f);

  optim::zero_grad(params);
  CHECK(optim::clip_grad_norm(params, 1.0).item<double>() == 0.0);
  CHECK_THROWS_AS(optim::clip_grad_norm(params, 0.0), libreyolo::core::Error);
}
