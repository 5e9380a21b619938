// Multi-scale deformable attention (sdk/detr/ms_deform_attn): the core against bilinear
// interpolation written out by hand (values and gradients), the module's parameters, its
// initialisation and its input checks. Parity with LibreYOLO: test_ms_deform_attn_parity.cpp.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/ms_deform_attn.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace detr = libreyolo::sdk::detr;

namespace {

const detr::SpatialShapes kShapes = {{4, 5}, {2, 3}};  // 26 positions

// The core's inputs, in float64 so the comparison can be tight.
struct CoreInputs {
  torch::Tensor value, locations, weights;
};

CoreInputs core_inputs(int64_t batch = 2, int64_t queries = 3, int64_t heads = 2, int64_t channels = 3,
                       int64_t points = 2) {
  torch::manual_seed(7);
  const auto levels = static_cast<int64_t>(kShapes.size());
  const auto opts = torch::dtype(torch::kFloat64);
  // Locations reach past [0, 1] on purpose: the corners outside an image must read zero.
  return {torch::randn({batch, 26, heads, channels}, opts),
          torch::rand({batch, queries, heads, levels, points, 2}, opts) * 1.4 - 0.2,
          torch::rand({batch, queries, heads, levels, points}, opts)};
}

// Where one sampling location reads a level image: its four neighbouring pixels with their
// bilinear weights, and the fractional offsets the derivatives need. align_corners = false: pixel
// i covers [i, i + 1) / size, so location u sits at pixel coordinate u * size - 0.5; corners
// outside the image read zero (position -1).
struct Corner {
  int64_t position;  // index into Lv, or -1 outside the image
  double weight;
};

struct Footprint {
  std::array<Corner, 4> corners;  // (y0, x0), (y0, x0 + 1), (y0 + 1, x0), (y0 + 1, x0 + 1)
  double fx, fy;
};

Footprint footprint(double loc_x, double loc_y, int64_t h, int64_t w, int64_t start) {
  const double px = loc_x * static_cast<double>(w) - 0.5, py = loc_y * static_cast<double>(h) - 0.5;
  const auto x0 = static_cast<int64_t>(std::floor(px)), y0 = static_cast<int64_t>(std::floor(py));
  Footprint f{{}, px - static_cast<double>(x0), py - static_cast<double>(y0)};
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const int64_t x = x0 + dx, y = y0 + dy;
      const bool inside = x >= 0 && x < w && y >= 0 && y < h;
      f.corners[static_cast<size_t>(dy * 2 + dx)] = {inside ? start + y * w + x : -1,
                                                     (dy ? f.fy : 1 - f.fy) * (dx ? f.fx : 1 - f.fx)};
    }
  return f;
}

// The direct formula: output [B, Lq, H * C] and, for an upstream gradient, the gradients by value,
// locations and weights, accumulated loop by loop.
struct Direct {
  torch::Tensor output, grad_value, grad_locations, grad_weights;
};

Direct direct_core(const CoreInputs& in, const torch::Tensor& upstream) {
  const auto B = in.value.size(0), H = in.value.size(2), C = in.value.size(3);
  const auto Q = in.locations.size(1), L = in.locations.size(3), P = in.locations.size(4);
  Direct d{torch::zeros({B, Q, H * C}, torch::kFloat64), torch::zeros_like(in.value), torch::zeros_like(in.locations),
           torch::zeros_like(in.weights)};
  auto value = in.value.accessor<double, 4>();
  auto loc = in.locations.accessor<double, 6>();
  auto a = in.weights.accessor<double, 5>();
  auto g = upstream.accessor<double, 3>();
  auto out = d.output.accessor<double, 3>();
  auto gv = d.grad_value.accessor<double, 4>();
  auto gl = d.grad_locations.accessor<double, 6>();
  auto ga = d.grad_weights.accessor<double, 5>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t q = 0; q < Q; ++q)
      for (int64_t h = 0; h < H; ++h) {
        int64_t start = 0;
        for (int64_t l = 0; l < L; ++l) {
          const auto [lh, lw] = kShapes[static_cast<size_t>(l)];
          for (int64_t p = 0; p < P; ++p) {
            const auto f = footprint(loc[b][q][h][l][p][0], loc[b][q][h][l][p][1], lh, lw, start);
            const auto& cs = f.corners;
            const double fx = f.fx, fy = f.fy;
            for (int64_t c = 0; c < C; ++c) {
              const auto v = [&](size_t k) { return cs[k].position < 0 ? 0.0 : value[b][cs[k].position][h][c]; };
              const double sample = cs[0].weight * v(0) + cs[1].weight * v(1) + cs[2].weight * v(2) + cs[3].weight * v(3);
              const double d_px = (1 - fy) * (v(1) - v(0)) + fy * (v(3) - v(2));
              const double d_py = (1 - fx) * (v(2) - v(0)) + fx * (v(3) - v(1));
              const double up = g[b][q][h * C + c], weight = a[b][q][h][l][p];
              out[b][q][h * C + c] += weight * sample;
              ga[b][q][h][l][p] += up * sample;
              gl[b][q][h][l][p][0] += up * weight * d_px * static_cast<double>(lw);
              gl[b][q][h][l][p][1] += up * weight * d_py * static_cast<double>(lh);
              for (const auto& corner : cs)
                if (corner.position >= 0) gv[b][corner.position][h][c] += up * weight * corner.weight;
            }
          }
          start += lh * lw;
        }
      }
  return d;
}

}  // namespace

TEST_CASE("ms_deform_attn_core: equals bilinear sampling written out, zeros outside the image") {
  const auto in = core_inputs();
  const auto upstream = torch::zeros({2, 3, 6}, torch::kFloat64);
  const auto expected = direct_core(in, upstream).output;
  const auto output = detr::ms_deform_attn_core(in.value, kShapes, in.locations, in.weights);
  CHECK(output.sizes() == expected.sizes());
  CHECK(torch::allclose(output, expected, 1e-12, 1e-12));
  // float32 gives the same up to rounding.
  const auto single = detr::ms_deform_attn_core(in.value.to(torch::kFloat32), kShapes, in.locations.to(torch::kFloat32),
                                                in.weights.to(torch::kFloat32));
  CHECK(torch::allclose(single.to(torch::kFloat64), expected, 1e-5, 1e-5));
}

TEST_CASE("ms_deform_attn_core: gradients by value, locations and weights equal the direct formula's") {
  auto in = core_inputs();
  in.value.requires_grad_();
  in.locations.requires_grad_();
  in.weights.requires_grad_();
  torch::manual_seed(11);
  const auto upstream = torch::randn({2, 3, 6}, torch::kFloat64);
  (detr::ms_deform_attn_core(in.value, kShapes, in.locations, in.weights) * upstream).sum().backward();
  const auto expected = direct_core({in.value.detach(), in.locations.detach(), in.weights.detach()}, upstream);
  CHECK(torch::allclose(in.value.grad(), expected.grad_value, 1e-10, 1e-10));
  CHECK(torch::allclose(in.locations.grad(), expected.grad_locations, 1e-10, 1e-10));
  CHECK(torch::allclose(in.weights.grad(), expected.grad_weights, 1e-10, 1e-10));
  CHECK(expected.grad_value.abs().sum().item<double>() > 0);  // the comparison is not 0 == 0
}

TEST_CASE("ms_deform_attn_core: inconsistent shapes are refused with a message") {
  const auto in = core_inputs();
  const detr::SpatialShapes too_few = {{4, 5}, {2, 2}};
  CHECK_THROWS_WITH_AS(detr::ms_deform_attn_core(in.value, too_few, in.locations, in.weights),
                       doctest::Contains("value has Lv = 26"), c10::Error);
  CHECK_THROWS_WITH_AS(detr::ms_deform_attn_core(in.value, {{4, 5}}, in.locations, in.weights),
                       doctest::Contains("one (h, w) per level"), c10::Error);
  CHECK_THROWS_AS(detr::ms_deform_attn_core(in.value, kShapes, in.locations, in.weights.narrow(4, 0, 1)), c10::Error);
  CHECK_THROWS_AS(detr::ms_deform_attn_core(in.value.select(3, 0), kShapes, in.locations, in.weights), c10::Error);
}

TEST_CASE("MSDeformableAttention: LibreYOLO's submodule names, order and shapes") {
  detr::MSDeformableAttention attention(16, 2, 3, 4);  // 24 points per query
  std::vector<std::string> names;
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& item : attention->named_parameters()) {
    names.push_back(item.key());
    shapes.push_back(item.value().sizes().vec());
  }
  const std::vector<std::string> expected_names = {
      "sampling_offsets.weight", "sampling_offsets.bias", "attention_weights.weight", "attention_weights.bias",
      "value_proj.weight",       "value_proj.bias",       "output_proj.weight",       "output_proj.bias"};
  const std::vector<std::vector<int64_t>> expected_shapes = {{48, 16}, {48}, {24, 16}, {24},
                                                             {16, 16}, {16}, {16, 16}, {16}};
  CHECK(names == expected_names);
  CHECK(shapes == expected_shapes);
  CHECK_THROWS_WITH_AS(detr::MSDeformableAttention(10, 4, 1, 1), doctest::Contains("divisible by num_heads"),
                       c10::Error);
}

TEST_CASE("MSDeformableAttention: initialisation puts each head's points on its own ray") {
  const int64_t heads = 8, levels = 4, points = 4, dim = 32;
  detr::MSDeformableAttention attention(dim, heads, levels, points);
  const auto bias = attention->sampling_offsets->bias.view({heads, levels, points, 2});
  for (int64_t h = 0; h < heads; ++h) {
    const double angle = 2.0 * M_PI * static_cast<double>(h) / static_cast<double>(heads);
    const double largest = std::max(std::abs(std::cos(angle)), std::abs(std::sin(angle)));
    for (int64_t l = 0; l < levels; ++l)
      for (int64_t p = 0; p < points; ++p) {
        const double scale = static_cast<double>(p + 1) / largest;
        CHECK(bias[h][l][p][0].item<double>() == doctest::Approx(std::cos(angle) * scale).epsilon(1e-6));
        CHECK(bias[h][l][p][1].item<double>() == doctest::Approx(std::sin(angle) * scale).epsilon(1e-6));
      }
  }
  // Head 1 of 8 points at 45 degrees: (1, 1), (2, 2), ... after the normalisation.
  CHECK(bias[1][0][1][0].item<double>() == doctest::Approx(2.0));
  CHECK(attention->sampling_offsets->weight.abs().max().item<double>() == 0);
  CHECK(attention->attention_weights->weight.abs().max().item<double>() == 0);
  CHECK(attention->attention_weights->bias.abs().max().item<double>() == 0);
  const double xavier = std::sqrt(6.0 / (2.0 * dim));
  CHECK(attention->value_proj->weight.abs().max().item<double>() <= xavier);
  CHECK(attention->value_proj->weight.abs().max().item<double>() > 0.5 * xavier);
  CHECK(attention->output_proj->bias.abs().max().item<double>() == 0);
}

TEST_CASE("MSDeformableAttention: one reference level broadcasts over all levels") {
  torch::manual_seed(3);
  detr::MSDeformableAttention attention(8, 2, 2, 3);
  const auto query = torch::randn({2, 4, 8});
  const auto value = torch::randn({2, 26, 8});
  for (const int64_t coordinates : {2, 4}) {
    const auto one = torch::rand({2, 4, 1, coordinates}) * 0.5 + 0.25;
    const auto repeated = one.expand({2, 4, 2, coordinates}).contiguous();
    const auto a = attention->forward(query, one, value, kShapes);
    const auto b = attention->forward(query, repeated, value, kShapes);
    CHECK(a.sizes() == std::vector<int64_t>{2, 4, 8});
    CHECK(torch::allclose(a, b, 1e-6, 1e-6));
  }
}

TEST_CASE("MSDeformableAttention: a masked-out value position contributes nothing") {
  torch::manual_seed(5);
  detr::MSDeformableAttention attention(8, 2, 2, 3);
  const auto query = torch::randn({1, 3, 8});
  const auto value = torch::randn({1, 26, 8});
  const auto reference = torch::rand({1, 3, 2, 2});
  auto mask = torch::ones({1, 26}, torch::kBool);
  mask.narrow(1, 20, 6).fill_(false);  // the whole second level
  auto changed = value.clone();
  changed.narrow(1, 20, 6).normal_();
  const auto a = attention->forward(query, reference, value, kShapes, mask);
  const auto b = attention->forward(query, reference, changed, kShapes, mask);
  CHECK(torch::allclose(a, b, 1e-6, 1e-6));
  CHECK_FALSE(torch::allclose(attention->forward(query, reference, value, kShapes),
                              attention->forward(query, reference, changed, kShapes), 1e-6, 1e-6));
}

TEST_CASE("MSDeformableAttention: bad inputs are refused with a message") {
  detr::MSDeformableAttention attention(8, 2, 2, 3);
  const auto query = torch::zeros({1, 3, 8});
  const auto value = torch::zeros({1, 26, 8});
  CHECK_THROWS_WITH_AS(attention->forward(query, torch::zeros({1, 3, 2, 3}), value, kShapes),
                       doctest::Contains("must be 2 (x, y) or 4"), c10::Error);
  CHECK_THROWS_WITH_AS(attention->forward(query, torch::zeros({1, 3, 2, 2}), value, {{4, 5}}),
                       doctest::Contains("built for 2 levels"), c10::Error);
  CHECK_THROWS_WITH_AS(attention->forward(query, torch::zeros({1, 3, 3, 2}), value, kShapes),
                       doctest::Contains("reference_points must be"), c10::Error);
  CHECK_THROWS_WITH_AS(attention->forward(query, torch::zeros({1, 3, 2, 2}), value, kShapes, torch::ones({1, 25})),
                       doctest::Contains("value_mask must be"), c10::Error);
  CHECK_THROWS_WITH_AS(attention->forward(torch::zeros({1, 3, 6}), torch::zeros({1, 3, 2, 2}), value, kShapes),
                       doctest::Contains("query must be"), c10::Error);
}
