// sdk::Linear (linear.hpp): torch::nn::Linear's parameters and keys, torch::linear's forward (one
// operator for a [batch, queries, features] input where LibTorch's C++ Linear dispatches three),
// and a clone that stays an sdk::Linear.
#include "../torch_doctest.hpp"

#include "libreyolo/core/profiler/op_census.hpp"
#include "libreyolo/sdk/linear.hpp"

namespace sdk = libreyolo::sdk;
using libreyolo::core::profiler::OpCensus;
using libreyolo::core::profiler::StepPhase;

namespace {

// Outermost operators the layer's forward dispatches for x.
template <class Layer>
std::int64_t operators_of(Layer& layer, const torch::Tensor& x) {
  OpCensus census;
  census.step_begins();
  census.phase_begins(StepPhase::forward);
  (void)layer->forward(x);
  census.step_ends();
  return census.count(StepPhase::forward).outermost;
}

}  // namespace

TEST_CASE("sdk::Linear: torch::nn::Linear's keys and initialisation, torch::linear's result, one operator") {
  torch::manual_seed(5);
  sdk::Linear mine(torch::nn::LinearOptions(6, 4));
  torch::manual_seed(5);
  torch::nn::Linear theirs(torch::nn::LinearOptions(6, 4));
  CHECK(mine->named_parameters().keys() == theirs->named_parameters().keys());
  CHECK(torch::equal(mine->weight, theirs->weight));  // same draws from the same seed
  CHECK(torch::equal(mine->bias, theirs->bias));
  const auto x = torch::randn({2, 5, 6});
  CHECK(torch::equal(mine->forward(x), torch::linear(x, theirs->weight, theirs->bias)));
  CHECK(torch::allclose(mine->forward(x), theirs->forward(x), 1e-6, 1e-6));
  CHECK(operators_of(mine, x) == 1);
  CHECK(operators_of(theirs, x) == 3);  // t, matmul, add_: why this type exists
  sdk::Linear no_bias(torch::nn::LinearOptions(6, 3).bias(false));
  CHECK_FALSE(no_bias->bias.defined());
  CHECK(torch::equal(no_bias->forward(x), torch::matmul(x, no_bias->weight.t())));
}

TEST_CASE("sdk::Linear: a clone is an sdk::Linear with the same values, not tied to the original") {
  sdk::Linear layer(4, 2);
  layer->eval();
  const auto copy = std::dynamic_pointer_cast<sdk::LinearImpl>(layer->clone());
  REQUIRE(copy);
  CHECK_FALSE(copy->is_training());
  CHECK(torch::equal(copy->weight, layer->weight));
  {
    torch::NoGradGuard no_grad;
    copy->weight.add_(1);
  }
  CHECK_FALSE(torch::equal(copy->weight, layer->weight));
  CHECK(copy->weight.requires_grad());
}
