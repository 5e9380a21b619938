// deformable_sampling (sdk/detr/ms_deform_attn.hpp): the per-level-count entry point both DETR
// decoders sample through, its composed path against the core, the fused_kernels policy's
// fallback on the CPU, and on a CUDA machine the fused kernel against the composed ops (values
// and gradients within 1e-5 of the float64 composed result, the bar for a fused kernel).
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/ms_deform_attn.hpp>
#include <libreyolo/sdk/fused_kernels.hpp>

#include <string>
#include <vector>

namespace detr = libreyolo::sdk::detr;
namespace sdk = libreyolo::sdk;

namespace {

struct Inputs {
  detr::SpatialShapes shapes;
  std::vector<int64_t> points;
  torch::Tensor value, locations, weights;  // [B, Lv, H, C], [B, Q, H, T, 2], [B, Q, H, T]
};

Inputs inputs(const detr::SpatialShapes& shapes, const std::vector<int64_t>& points, int64_t channels,
              torch::Dtype dtype = torch::kFloat64, int64_t batch = 2, int64_t queries = 5, int64_t heads = 2) {
  torch::manual_seed(11);
  int64_t positions = 0, total = 0;
  for (const auto& [h, w] : shapes) positions += h * w;
  for (const auto n : points) total += n;
  const auto opts = torch::dtype(dtype);
  // Locations reach past [0, 1] on purpose: corners outside an image read zero.
  return {shapes, points, torch::randn({batch, positions, heads, channels}, opts),
          torch::rand({batch, queries, heads, total, 2}, opts) * 1.4 - 0.2,
          torch::rand({batch, queries, heads, total}, opts)};
}

// The same sampling level by level through the core, written out here.
torch::Tensor per_level_core(const Inputs& in) {
  torch::Tensor out;
  int64_t point = 0, position = 0;
  for (size_t level = 0; level < in.shapes.size(); ++level) {
    const auto [h, w] = in.shapes[level];
    const auto part = detr::ms_deform_attn_core(in.value.narrow(1, position, h * w), {in.shapes[level]},
                                                in.locations.narrow(3, point, in.points[level]).unsqueeze(3),
                                                in.weights.narrow(3, point, in.points[level]).unsqueeze(3));
    out = out.defined() ? out + part : part;
    point += in.points[level];
    position += h * w;
  }
  return out;
}

struct PolicyGuard {  // the policy is process-wide: leave it as found
  sdk::FusedKernels before = sdk::fused_kernels();
  explicit PolicyGuard(sdk::FusedKernels policy) { sdk::set_fused_kernels(policy); }
  ~PolicyGuard() { sdk::set_fused_kernels(before); }
};

double max_abs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

}  // namespace

TEST_CASE("deformable_sampling with a point count per level equals the core level by level") {
  const auto in = inputs({{4, 5}, {2, 3}}, {3, 2}, 3);
  const PolicyGuard off(sdk::FusedKernels::off);
  const auto out = detr::deformable_sampling(in.value, in.shapes, in.points, in.locations, in.weights);
  CHECK(out.sizes() == torch::IntArrayRef({2, 5, 6}));
  CHECK(max_abs(out - per_level_core(in)) < 1e-12);  // one sum over all points (LibreYOLO's), not one per level
}

TEST_CASE("deformable_sampling with equal counts matches the core's all-levels call") {
  const auto in = inputs({{4, 5}, {2, 3}, {1, 2}}, {2, 2, 2}, 4);
  const PolicyGuard off(sdk::FusedKernels::off);
  const auto out = detr::deformable_sampling(in.value, in.shapes, in.points, in.locations, in.weights);
  const auto all_levels = detr::ms_deform_attn_core(in.value, in.shapes, in.locations.reshape({2, 5, 2, 3, 2, 2}),
                                                    in.weights.reshape({2, 5, 2, 3, 2}));
  CHECK(max_abs(out - all_levels) < 1e-12);  // only the order of the sum differs
}

TEST_CASE("fused_kernels=auto falls back to the composed ops for CPU tensors, bit for bit") {
  const auto in = inputs({{4, 5}, {2, 3}}, {3, 2}, 4);
  torch::Tensor composed, chosen;
  {
    const PolicyGuard off(sdk::FusedKernels::off);
    composed = detr::deformable_sampling(in.value, in.shapes, in.points, in.locations, in.weights);
  }
  {
    const PolicyGuard on(sdk::FusedKernels::when_built);
    chosen = detr::deformable_sampling(in.value, in.shapes, in.points, in.locations, in.weights);
  }
  CHECK(torch::equal(composed, chosen));
}

TEST_CASE("deformable_sampling refuses counts and shapes that do not fit, naming them") {
  const auto in = inputs({{4, 5}, {2, 3}}, {3, 2}, 3);
  const auto message = [&](const std::vector<int64_t>& points, const torch::Tensor& weights) {
    try {
      detr::deformable_sampling(in.value, in.shapes, points, in.locations, weights);
    } catch (const c10::Error& e) {
      return std::string(e.what_without_backtrace());
    }
    return std::string("no error");
  };
  CHECK(message({3}, in.weights).find("one point count per level") != std::string::npos);
  CHECK(message({2, 2}, in.weights).find("[B, Lq, H, 4, 2]") != std::string::npos);
  CHECK(message({3, 2}, in.weights.narrow(3, 0, 4)).find("like the locations") != std::string::npos);
}

// ---- On a CUDA machine: the fused kernel against the composed ops ----

namespace {

bool fused_runnable() { return torch::cuda::is_available() && sdk::fused_kernels_built(); }

struct Sampled {
  torch::Tensor out, grad_value, grad_locations, grad_weights;
};

// Forward and backward of deformable_sampling under a policy, inputs cast to dtype on device.
Sampled sampled(const Inputs& in, sdk::FusedKernels policy, torch::Device device, torch::Dtype dtype,
                const torch::Tensor& upstream) {
  const PolicyGuard guard(policy);
  // Fresh leaves each call: to() returns the tensor itself when nothing changes, and a first call
  // that made in.value a leaf needing gradients would leave the second call's copies non-leaves.
  const auto leaf = [&](const torch::Tensor& t) { return t.detach().to(device, dtype, false, true).requires_grad_(); };
  auto value = leaf(in.value), locations = leaf(in.locations), weights = leaf(in.weights);
  const auto out = detr::deformable_sampling(value, in.shapes, in.points, locations, weights);
  out.backward(upstream.to(device, out.scalar_type()));
  return {out.detach().cpu().to(torch::kFloat64), value.grad().cpu().to(torch::kFloat64),
          locations.grad().cpu().to(torch::kFloat64), weights.grad().cpu().to(torch::kFloat64)};
}

// Largest difference relative to the reference's largest magnitude (1 where that is below 1).
double relative(const torch::Tensor& got, const torch::Tensor& want) {
  return max_abs(got - want) / std::max(1.0, max_abs(want));
}

}  // namespace

TEST_CASE("the fused CUDA sampling equals the composed ops within 1e-5, values and gradients") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  struct Case {
    detr::SpatialShapes shapes;
    std::vector<int64_t> points;
    int64_t channels;
  };
  // D-FINE-n's layout (16 channels a head, 2 levels, 6 points each), RT-DETR's (32, 3 levels x 4),
  // and counts that differ per level, at sizes where several points hit one position.
  const std::vector<Case> cases = {{{{20, 20}, {10, 10}}, {6, 6}, 16},
                                   {{{16, 16}, {8, 8}, {4, 4}}, {4, 4, 4}, 32},
                                   {{{9, 7}, {5, 3}, {2, 2}}, {3, 6, 2}, 8}};
  for (const auto& c : cases) {
    const auto in = inputs(c.shapes, c.points, c.channels, torch::kFloat64, 3, 40, 4);
    const auto upstream = torch::randn({3, 40, 4 * c.channels}, torch::kFloat64);
    const auto want = sampled(in, sdk::FusedKernels::off, torch::kCPU, torch::kFloat64, upstream);
    const auto got = sampled(in, sdk::FusedKernels::when_built, torch::kCUDA, torch::kFloat32, upstream);
    INFO("channels ", c.channels, ", levels ", c.shapes.size());
    CHECK(relative(got.out, want.out) < 1e-5);
    CHECK(relative(got.grad_value, want.grad_value) < 1e-5);
    CHECK(relative(got.grad_locations, want.grad_locations) < 1e-5);
    CHECK(relative(got.grad_weights, want.grad_weights) < 1e-5);
  }
}

TEST_CASE("the fused sampling is refused for 24 channels a head: the composed ops run on CUDA") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  const auto in = inputs({{6, 6}, {3, 3}}, {2, 2}, 24, torch::kFloat64, 2, 8, 2);
  const auto upstream = torch::randn({2, 8, 48}, torch::kFloat64);
  const auto off = sampled(in, sdk::FusedKernels::off, torch::kCUDA, torch::kFloat32, upstream);
  const auto on = sampled(in, sdk::FusedKernels::when_built, torch::kCUDA, torch::kFloat32, upstream);
  CHECK(torch::equal(off.out, on.out));
}

TEST_CASE("RT-DETR's MSDeformableAttention trains the same with the fused sampling") {
  if (!fused_runnable()) {
    MESSAGE("skipped: needs a CUDA device and a build with the fused kernels");
    return;
  }
  torch::manual_seed(3);
  detr::MSDeformableAttention attention(256, 8, 3, 4);
  attention->to(torch::kCUDA);
  // Non-zero offsets and attention logits, so the points spread and the weights differ.
  {
    torch::NoGradGuard no_grad;
    attention->sampling_offsets->weight.normal_(0, 0.05);
    attention->attention_weights->weight.normal_(0, 0.05);
  }
  const detr::SpatialShapes shapes = {{20, 20}, {10, 10}, {5, 5}};
  const auto query = torch::randn({2, 50, 256}, torch::kCUDA);
  const auto reference = torch::rand({2, 50, 1, 4}, torch::kCUDA) * 0.6 + 0.2;
  const auto value = torch::randn({2, 525, 256}, torch::kCUDA);
  const auto run = [&](sdk::FusedKernels policy) {
    const PolicyGuard guard(policy);
    attention->zero_grad();
    const auto out = attention->forward(query, reference, value, shapes);
    out.pow(2).sum().backward();
    return std::make_pair(out.detach().cpu().to(torch::kFloat64),
                          attention->sampling_offsets->weight.grad().cpu().to(torch::kFloat64));
  };
  const auto [composed_out, composed_grad] = run(sdk::FusedKernels::off);
  const auto [fused_out, fused_grad] = run(sdk::FusedKernels::when_built);
  CHECK(relative(fused_out, composed_out) < 1e-5);
  CHECK(relative(fused_grad, composed_grad) < 1e-4);  // float32 on both sides: sums in other orders
}
