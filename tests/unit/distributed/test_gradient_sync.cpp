// GradientSynchronizer over in-process ranks (thread_collectives.hpp): averaged gradients equal
// one process's on the whole batch, buckets go out in the same order on every rank, unused
// parameters count as zero, and accumulation windows synchronise once.
#include "../torch_doctest.hpp"

#include <torch/torch.h>

#include <ATen/record_function.h>

#include <mutex>
#include <string>

#include "libreyolo/core/distributed/gradient_sync.hpp"
#include "thread_collectives.hpp"

using libreyolo::core::distributed::GradientSynchronizer;
using libreyolo::test::ThreadCollectives;
using libreyolo::test::ThreadWorld;

namespace {

struct TwoLayers : torch::nn::Module {
  TwoLayers() {
    torch::manual_seed(3);
    first = register_module("first", torch::nn::Linear(6, 5));
    second = register_module("second", torch::nn::Linear(5, 2));
    unused = register_parameter("unused", torch::ones({4}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return second->forward(torch::tanh(first->forward(x))); }
  torch::nn::Linear first{nullptr}, second{nullptr};
  torch::Tensor unused;
};

const torch::Tensor& batch() {
  static const torch::Tensor x = [] {
    torch::manual_seed(5);
    return torch::randn({8, 6});
  }();
  return x;
}

// The whole batch in one process: the gradients the ranks must agree on.
std::vector<torch::Tensor> single_process_gradients() {
  TwoLayers model;
  model.forward(batch()).pow(2).mean().backward();
  std::vector<torch::Tensor> grads;
  for (auto& p : model.parameters()) grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  return grads;
}

}  // namespace

TEST_CASE("distributed: averaged gradients equal one process's on the global batch") {
  const auto expected = single_process_gradients();
  for (const std::size_t bucket_bytes : {std::size_t{64}, std::size_t{25} << 20}) {
    ThreadWorld world(2);
    std::mutex mutex;
    std::vector<std::vector<torch::Tensor>> got(2);
    std::size_t buckets = 0;
    // Built here, one after the other: their seeded initialisation shares torch's global
    // generator, which two threads building at once would interleave.
    std::vector<std::shared_ptr<TwoLayers>> models{std::make_shared<TwoLayers>(), std::make_shared<TwoLayers>()};
    world.run([&](int rank, ThreadCollectives& collectives) {
      auto& model = *models[static_cast<std::size_t>(rank)];
      std::shared_ptr<ThreadCollectives> shared(&collectives, [](ThreadCollectives*) {});
      GradientSynchronizer sync(model.parameters(), shared, bucket_bytes);
      sync.prepare(true);
      model.forward(batch().narrow(0, rank * 4, 4)).pow(2).mean().backward();
      sync.finish();
      std::lock_guard<std::mutex> lock(mutex);
      buckets = sync.bucket_count();
      for (auto& p : model.parameters()) got[static_cast<std::size_t>(rank)].push_back(p.grad().clone());
    });
    CAPTURE(bucket_bytes);
    // 64 bytes (reverse order: second.bias 8 + second.weight 40 | first.bias 20 | first.weight 120 |
    // unused 16): four buckets; 25 MB: one.
    CHECK(buckets == (bucket_bytes == 64 ? 4u : 1u));
    for (int rank = 0; rank < 2; ++rank) {
      for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(torch::allclose(got[static_cast<std::size_t>(rank)][i], expected[i], 1e-6, 1e-7));
      }
    }
    // The unused parameter (registered first) got no gradient from backward: zero, on both ranks.
    CHECK(got[0].front().abs().sum().item<float>() == 0.0f);
    CHECK(got[1].front().abs().sum().item<float>() == 0.0f);
    CHECK(world.rank(0)->calls().start_all_reduce == buckets);
  }
}

TEST_CASE("distributed: gradient accumulation synchronises on the window's last batch only") {
  const auto expected = single_process_gradients();
  ThreadWorld world(2);
  std::vector<std::vector<torch::Tensor>> got(2);
  std::vector<std::shared_ptr<TwoLayers>> models{std::make_shared<TwoLayers>(), std::make_shared<TwoLayers>()};
  world.run([&](int rank, ThreadCollectives& collectives) {
    auto& model = *models[static_cast<std::size_t>(rank)];
    std::shared_ptr<ThreadCollectives> shared(&collectives, [](ThreadCollectives*) {});
    GradientSynchronizer sync(model.parameters(), shared);
    for (int part = 0; part < 2; ++part) {
      sync.prepare(part == 1);
      (model.forward(batch().narrow(0, rank * 4 + part * 2, 2)).pow(2).mean() / 2).backward();
      sync.finish();
    }
    for (auto& p : model.parameters()) got[static_cast<std::size_t>(rank)].push_back(p.grad().clone());
  });
  CHECK(world.rank(0)->calls().start_all_reduce == 1);  // one bucket, sent once
  for (std::size_t i = 1; i < expected.size(); ++i) {  // [0] is the unused parameter
    CHECK(torch::allclose(got[0][i], expected[i], 1e-6, 1e-7));
    CHECK(torch::allclose(got[1][i], expected[i], 1e-6, 1e-7));
  }
}

namespace {

// A convolution whose weight is stored channels-last (as the trainer stores them on CUDA).
struct ChannelsLastConv : torch::nn::Module {
  ChannelsLastConv() {
    torch::manual_seed(11);
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)));
    conv->weight.set_data(conv->weight.contiguous(torch::MemoryFormat::ChannelsLast));
    scale = register_parameter("scale", torch::ones({4}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return (conv->forward(x) * scale.view({1, 4, 1, 1})).pow(2).mean(); }
  torch::nn::Conv2d conv{nullptr};
  torch::Tensor scale;
};

const torch::Tensor& images() {
  static const torch::Tensor x = [] {
    torch::manual_seed(13);
    return torch::randn({4, 3, 6, 6});
  }();
  return x;
}

// Calls of one operator on this thread while alive (CPU backward runs on the calling thread).
class OperatorCounter {
 public:
  explicit OperatorCounter(const char* name) : name_(name) {
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(
            [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
              if (current_ && std::string(fn.name()) == current_->name_) ++current_->calls_;
              return nullptr;
            })
            .scopes({at::RecordScope::FUNCTION}));
    current_ = this;
  }
  ~OperatorCounter() {
    at::removeCallback(handle_);
    current_ = nullptr;
  }
  int calls() const { return calls_; }

 private:
  static thread_local OperatorCounter* current_;
  std::string name_;
  at::CallbackHandle handle_ = 0;
  int calls_ = 0;
};
thread_local OperatorCounter* OperatorCounter::current_ = nullptr;

}  // namespace

TEST_CASE("distributed: a channels-last weight's gradient averages in its memory order and stays channels-last") {
  ChannelsLastConv single;
  single.forward(images().contiguous(torch::MemoryFormat::ChannelsLast)).backward();
  const auto expected = single.conv->weight.grad().clone();
  ThreadWorld world(2);
  std::vector<torch::Tensor> got(2);
  std::vector<std::shared_ptr<ChannelsLastConv>> models{std::make_shared<ChannelsLastConv>(),
                                                         std::make_shared<ChannelsLastConv>()};
  world.run([&](int rank, ThreadCollectives& collectives) {
    auto& model = *models[static_cast<std::size_t>(rank)];
    std::shared_ptr<ThreadCollectives> shared(&collectives, [](ThreadCollectives*) {});
    GradientSynchronizer sync(model.parameters(), shared);
    sync.prepare(true);
    // The ranks' inputs in different layouts: whatever layout each gradient comes in, the
    // bucket's order is the parameter's, the same on both ranks.
    auto shard = images().narrow(0, rank * 2, 2);
    if (rank == 0) shard = shard.contiguous(torch::MemoryFormat::ChannelsLast);
    model.forward(shard).backward();
    sync.finish();
    got[static_cast<std::size_t>(rank)] = model.conv->weight.grad();
  });
  for (int rank = 0; rank < 2; ++rank) {
    const auto& grad = got[static_cast<std::size_t>(rank)];
    CHECK(torch::allclose(grad, expected, 1e-5, 1e-7));
    CHECK(grad.strides() == models[0]->conv->weight.strides());
    CHECK(grad.is_contiguous(torch::MemoryFormat::ChannelsLast));
  }
}

TEST_CASE("distributed: packing and unpacking a bucket copies no parameter's gradient one by one") {
  // Backward alone, then backward with the synchroniser: what the synchroniser adds, per rank.
  ThreadWorld world(2);
  std::vector<int> extra(2), parameters(2);
  std::vector<std::shared_ptr<TwoLayers>> models{std::make_shared<TwoLayers>(), std::make_shared<TwoLayers>()};
  world.run([&](int rank, ThreadCollectives& collectives) {
    auto& model = *models[static_cast<std::size_t>(rank)];
    const auto loss = [&] { return model.forward(batch().narrow(0, rank * 4, 4)).pow(2).mean(); };
    int alone = 0;
    {
      OperatorCounter copies("aten::copy_");
      loss().backward();
      alone = copies.calls();
    }
    model.zero_grad(/*set_to_none=*/true);  // both backward passes start without gradients
    std::shared_ptr<ThreadCollectives> shared(&collectives, [](ThreadCollectives*) {});
    GradientSynchronizer sync(model.parameters(), shared);
    OperatorCounter copies("aten::copy_");
    sync.prepare(true);
    loss().backward();
    sync.finish();
    extra[static_cast<std::size_t>(rank)] = copies.calls() - alone;
    parameters[static_cast<std::size_t>(rank)] = static_cast<int>(model.parameters().size());
  });
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    REQUIRE(parameters[static_cast<std::size_t>(rank)] == 5);
    // One bucket: at most the test collective's own result copy (and its sum's clone), where a
    // copy per parameter each way would be 10.
    CHECK(extra[static_cast<std::size_t>(rank)] <= 2);
  }
}
