// WeightCopies (fused_kernels=weight_casts): the forward reads low-precision copies of the
// convolution weights, the gradients come back to the float32 weights, and everything equals
// what casting each weight in the forward gives, bit for bit. On the CPU the copies are float64
// (a type the CPU convolves in; the trainer's autocast is CUDA's); on a GPU, the trainer's case:
// float32 weights, float16 copies, under CUDA autocast.
#include <stdexcept>

#include "libreyolo/core/amp/precision_plan.hpp"
#include "libreyolo/core/amp/weight_copies.hpp"
#include "../torch_doctest.hpp"

namespace amp = libreyolo::core::amp;
namespace nn = torch::nn;

namespace {

// conv (no bias) -> SiLU -> conv (bias): both kinds of layer the copies handle.
struct TwoConvs : nn::Module {
  nn::Conv2d first{nullptr}, second{nullptr};
  TwoConvs() {
    first = register_module("first", nn::Conv2d(nn::Conv2dOptions(3, 4, 3).padding(1).bias(false)));
    second = register_module("second", nn::Conv2d(nn::Conv2dOptions(4, 2, 1)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return second(torch::silu(first(x))); }
};

std::shared_ptr<TwoConvs> model_in(torch::ScalarType dtype, torch::Device device = torch::kCPU) {
  torch::manual_seed(3);
  auto model = std::make_shared<TwoConvs>();
  model->to(device, dtype);
  return model;
}

// What casting in the forward computes: every weight rounded to `dtype` inside the graph, so
// the gradient reaches the float64 weights through the cast's backward.
torch::Tensor cast_forward(TwoConvs& m, const torch::Tensor& x, torch::ScalarType dtype) {
  const auto hidden = torch::silu(torch::conv2d(x, m.first->weight.to(dtype), {}, 1, 1));
  return torch::conv2d(hidden, m.second->weight.to(dtype), m.second->bias.to(dtype));
}

void check_same_gradients(TwoConvs& a, TwoConvs& b) {
  const auto pa = a.parameters(), pb = b.parameters();
  REQUIRE(pa.size() == pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    REQUIRE(pa[i].grad().defined());
    REQUIRE(pb[i].grad().defined());
    CHECK((pa[i].grad().scalar_type() == pb[i].grad().scalar_type()));
    CHECK(torch::equal(pa[i].grad(), pb[i].grad()));
  }
}

// One forward + backward through the copies; returns the loss.
torch::Tensor copies_step(TwoConvs& m, amp::WeightCopies& copies, const torch::Tensor& x) {
  torch::Tensor loss;
  {
    amp::WeightCopies::Swap swap(copies);
    loss = m.forward(x).square().sum();
  }
  loss.backward();
  copies.pass_gradients();
  return loss;
}

}  // namespace

TEST_CASE("weight copies take float32 weights only (what autocast casts)") {
  auto model = model_in(torch::kFloat64);
  amp::WeightCopies copies(*model, torch::kFloat32);
  CHECK(copies.layers() == 0);
}

TEST_CASE("weight copies on the CPU: float32 weights read as float64 copies") {
  // The mechanics with a type the CPU convolves in: the copies are exact here, and each
  // gradient is rounded from float64 to float32 on its way back, as a cast's backward rounds it.
  auto reference = model_in(torch::kFloat32);
  auto model = model_in(torch::kFloat32);
  const auto x = torch::randn({2, 3, 6, 6}, torch::kFloat64);
  amp::WeightCopies copies(*model, torch::kFloat64);
  REQUIRE(copies.layers() == 2);
  CHECK(copies.tensors() == 3);

  SUBCASE("one backward: the same loss and the same float32 gradients") {
    const auto expected = cast_forward(*reference, x, torch::kFloat64).square().sum();
    expected.backward();
    const auto loss = copies_step(*model, copies, x);
    CHECK(torch::equal(loss, expected));
    check_same_gradients(*model, *reference);
    CHECK((model->first->weight.scalar_type() == torch::kFloat32));  // the members are back
    CHECK(model->first->weight.unsafeGetTensorImpl() == model->parameters()[0].unsafeGetTensorImpl());
  }
  SUBCASE("two backwards accumulate as autograd accumulates") {
    for (int i = 0; i < 2; ++i) {
      cast_forward(*reference, x * (i + 1), torch::kFloat64).square().sum().backward();
      copies_step(*model, copies, x * (i + 1));
    }
    check_same_gradients(*model, *reference);
  }
  SUBCASE("after the weights change, refresh (or a stale mark) makes the copies follow") {
    copies_step(*model, copies, x);  // fills the copies
    {
      torch::NoGradGuard no_grad;
      for (auto& p : model->parameters()) p.add_(0.25);
      for (auto& p : reference->parameters()) p.add_(0.25);
    }
    copies.mark_stale();
    amp::WeightCopies::Swap swap(copies);
    torch::NoGradGuard no_grad;
    CHECK(torch::equal(model->forward(x), cast_forward(*reference, x, torch::kFloat64)));
  }
  SUBCASE("a gradient a failed step left in the copies does not reach the next step") {
    {
      amp::WeightCopies::Swap swap(copies);
      model->forward(x).square().sum().backward();  // no pass_gradients: the step "failed" here
    }
    const auto expected = cast_forward(*reference, x, torch::kFloat64).square().sum();
    expected.backward();
    copies_step(*model, copies, x);
    check_same_gradients(*model, *reference);
  }
  SUBCASE("an exception inside the swap still puts the float32 weights back") {
    try {
      amp::WeightCopies::Swap swap(copies);
      CHECK((model->second->bias.scalar_type() == torch::kFloat64));
      throw std::runtime_error("forward failed");
    } catch (const std::runtime_error&) {
    }
    CHECK((model->second->bias.scalar_type() == torch::kFloat32));
    CHECK((model->first->weight.scalar_type() == torch::kFloat32));
  }
}

TEST_CASE("weight copies skip what does not train") {
  auto model = model_in(torch::kFloat32);
  model->first->weight.requires_grad_(false);
  model->second->bias.requires_grad_(false);
  amp::WeightCopies copies(*model, torch::kFloat64);
  CHECK(copies.layers() == 1);   // the second layer's weight only
  CHECK(copies.tensors() == 1);  // its frozen bias stays float32 (autocast casts it as before)
}

TEST_CASE("weight copies on the GPU: float16 copies under autocast equal autocast's own casts") {
  if (!torch::cuda::is_available()) return;  // CPU machines: the CPU cases above
  const torch::Device cuda(torch::kCUDA);
  amp::PrecisionPlan plan;
  plan.autocast = true;
  plan.dtype = torch::kFloat16;
  auto reference = model_in(torch::kFloat32, cuda);
  auto model = model_in(torch::kFloat32, cuda);
  for (auto* m : {reference.get(), model.get()}) {
    torch::NoGradGuard no_grad;
    for (auto& p : m->parameters())
      if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  const auto x = torch::randn({4, 3, 16, 16}, cuda).contiguous(torch::MemoryFormat::ChannelsLast);
  amp::WeightCopies copies(*model, torch::kFloat16);
  REQUIRE(copies.layers() == 2);
  for (int step = 0; step < 3; ++step) {  // with an update in between, as training does
    torch::Tensor expected, loss;
    {
      amp::AutocastScope autocast(plan);
      expected = reference->forward(x).to(torch::kFloat32).square().sum();
    }
    expected.backward();
    {
      amp::AutocastScope autocast(plan);
      amp::WeightCopies::Swap swap(copies);
      loss = model->forward(x).to(torch::kFloat32).square().sum();
    }
    loss.backward();
    copies.pass_gradients();
    CHECK(torch::equal(loss, expected));
    check_same_gradients(*model, *reference);
    torch::NoGradGuard no_grad;
    for (auto* m : {reference.get(), model.get()}) {
      for (auto& p : m->parameters()) {
        p.add_(p.grad(), -1e-3);
        p.mutable_grad().reset();
      }
    }
    copies.refresh();
  }
}
