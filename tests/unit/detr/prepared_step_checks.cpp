#include "prepared_step_checks.hpp"

#include <doctest/doctest.h>

#include <algorithm>

namespace libreyolo::test {

std::vector<std::pair<std::string, torch::Tensor>> gradients_by_name(const torch::nn::Module& model) {
  std::vector<std::pair<std::string, torch::Tensor>> grads;
  for (const auto& p : model.named_parameters()) {
    const auto& grad = p.value().grad();
    grads.emplace_back(p.key(), grad.defined() ? grad.clone() : torch::zeros_like(p.value()));
  }
  return grads;
}

namespace {
double largest(const torch::Tensor& t) { return t.abs().max().item<double>(); }
}  // namespace

void check_same_step(const PreparedStep& got, const PreparedStep& want, double gradient_floor,
                     double gradient_tolerance) {
  CHECK(got.loss == doctest::Approx(want.loss).epsilon(1e-5));
  for (std::size_t i = 0; i < want.outputs.size(); ++i) {
    INFO("output ", i);
    REQUIRE(got.outputs[i].defined() == want.outputs[i].defined());
    if (!want.outputs[i].defined()) continue;
    REQUIRE(got.outputs[i].sizes() == want.outputs[i].sizes());
    if (want.outputs[i].is_floating_point()) {
      CHECK(largest(got.outputs[i] - want.outputs[i]) / std::max(1e-12, largest(want.outputs[i])) < 1e-5);
    } else {
      CHECK(torch::equal(got.outputs[i], want.outputs[i]));
    }
  }
  REQUIRE(got.grads.size() == want.grads.size());
  for (std::size_t i = 0; i < want.grads.size(); ++i) {
    const auto& [name, wanted] = want.grads[i];
    const double difference = largest(got.grads[i].second - wanted);
    INFO(name, ": largest |gradient| ", largest(wanted), ", largest difference ", difference);
    CHECK(got.grads[i].first == name);
    CHECK(difference <= gradient_tolerance * std::max(largest(wanted), gradient_floor));
  }
}

}  // namespace libreyolo::test
