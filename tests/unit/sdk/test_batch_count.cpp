// sdk::BatchCountDeferral (batch_count.hpp): inside its scope the SDK's BatchNorm layers leave
// num_batches_tracked to one flush, which then holds what torch::nn::BatchNorm2d's own forward
// would have counted (a layer run twice counts twice); outputs and running statistics are
// torch's to the bit; outside a scope, and for layers without momentum, the count moves at once.
#include "../torch_doctest.hpp"

#include "libreyolo/sdk/batch_count.hpp"
#include "libreyolo/sdk/batch_norm.hpp"

namespace sdk = libreyolo::sdk;

namespace {

torch::nn::BatchNorm2dOptions yolo_options(int64_t channels) { return torch::nn::BatchNorm2dOptions(channels).eps(1e-3).momentum(0.03); }

// The same layer as torch's own BatchNorm2d, weights and buffers copied.
torch::nn::BatchNorm2d torch_twin(const sdk::BatchNorm2d& layer) {
  torch::nn::BatchNorm2d twin(layer->options);
  torch::NoGradGuard no_grad;
  auto mine = layer->named_parameters();
  for (auto& p : twin->named_parameters()) p.value().copy_(mine[p.key()]);
  auto buffers = layer->named_buffers();
  for (auto& b : twin->named_buffers()) b.value().copy_(buffers[b.key()]);
  return twin;
}

int64_t count_of(const torch::nn::BatchNorm2dImpl& layer) { return layer.num_batches_tracked.item<int64_t>(); }

}  // namespace

TEST_CASE("deferred BatchNorm counts: one flush holds torch's counts, outputs and statistics unchanged") {
  torch::manual_seed(3);
  sdk::BatchNorm2d first(yolo_options(4)), second(yolo_options(4));
  auto first_twin = torch_twin(first), second_twin = torch_twin(second);
  const auto x = torch::randn({2, 4, 5, 5});
  torch::Tensor y, want;
  {
    sdk::BatchCountDeferral deferral;
    CHECK(sdk::batch_counts_deferred());
    y = second(first(second(x)));  // `second` runs twice
    CHECK(count_of(*first) == 0);
    CHECK(count_of(*second) == 0);
    CHECK(deferral.pending() == 3);
    deferral.flush();
    CHECK(deferral.pending() == 0);
  }
  CHECK_FALSE(sdk::batch_counts_deferred());
  want = second_twin(first_twin(second_twin(x)));
  CHECK(torch::equal(y, want));
  CHECK(count_of(*first) == 1);
  CHECK(count_of(*second) == 2);
  CHECK(count_of(*second) == count_of(*second_twin));
  CHECK(torch::equal(second->running_mean, second_twin->running_mean));
  CHECK(torch::equal(second->running_var, second_twin->running_var));
}

TEST_CASE("deferred BatchNorm counts: the scope's end flushes, scopes nest, and outside one the count moves at once") {
  sdk::BatchNorm2d layer(yolo_options(3));
  const auto x = torch::randn({2, 3, 4, 4});
  {
    sdk::BatchCountDeferral outer;
    {
      sdk::BatchCountDeferral inner;
      layer(x);
      CHECK(inner.pending() == 1);
      CHECK(outer.pending() == 0);
    }  // inner's end flushes into the counter, not into outer
    CHECK(count_of(*layer) == 1);
    layer(x);
    CHECK(outer.pending() == 1);
  }
  CHECK(count_of(*layer) == 2);
  layer(x);
  CHECK(count_of(*layer) == 3);
  layer->eval();
  {
    sdk::BatchCountDeferral deferral;
    layer(x);
    CHECK(deferral.pending() == 0);  // evaluation does not count
  }
  CHECK(count_of(*layer) == 3);
}

TEST_CASE("deferred BatchNorm counts: a layer without momentum reads its count, so it counts at once") {
  sdk::BatchNorm2d cumulative(torch::nn::BatchNorm2dOptions(3).momentum(c10::nullopt));
  auto twin = torch_twin(cumulative);
  const auto x = torch::randn({2, 3, 4, 4});
  sdk::BatchCountDeferral deferral;
  for (int i = 0; i < 3; ++i) {
    CHECK(torch::equal(cumulative(x + i), twin(x + i)));
  }
  CHECK(deferral.pending() == 0);
  CHECK(count_of(*cumulative) == 3);
  CHECK(torch::equal(cumulative->running_mean, twin->running_mean));
}
