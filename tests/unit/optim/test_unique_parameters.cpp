// Tied weights: one module registered under two parents (RTMDet's head shares its convs
// across levels) is listed at both paths by LibTorch; updating, averaging and counting must
// see it once.
#include "../torch_doctest.hpp"

#include "libreyolo/core/optim/unique_parameters.hpp"

namespace optim = libreyolo::core::optim;

namespace {

struct TiedImpl : torch::nn::Module {
  TiedImpl() {
    shared = register_module("first", torch::nn::Linear(4, 3));
    register_module("second", shared);  // the same module again
    own = register_module("own", torch::nn::Linear(3, 2));
  }
  torch::nn::Linear shared{nullptr}, own{nullptr};
};

}  // namespace

TEST_CASE("unique parameters: a module under two names is listed once, under its first name") {
  TiedImpl model;
  CHECK(model.named_parameters().size() == 6);  // LibTorch lists the shared weight and bias twice
  const auto named = optim::unique_named_parameters(model);
  REQUIRE(named.size() == 4);
  CHECK(named[0].name == "first.weight");
  CHECK(named[1].name == "first.bias");
  CHECK(named[2].name == "own.weight");
  CHECK(optim::parameter_count(model) == 4 * 3 + 3 + 3 * 2 + 2);
  model.own->weight.set_requires_grad(false);
  CHECK(optim::unique_parameters(model, /*trainable_only=*/true).size() == 3);
  CHECK(optim::unique_parameters(model).size() == 4);
}
