// The SDK's FDR primitives (detr/fdr.hpp) against LibreYOLO's D-FINE fdr.py on
// tests/fixtures/detr/fdr.json (written by tests/python/dfine_fdr_reference.py), plus properties
// that hold whatever the reference says: W is odd-symmetric with W(reg_max / 2) = 0 and ends at
// +-2 |up| |reg_scale|, and the two bin weights of an edge rebuild its distance.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/fdr.hpp>

#include "detr_fixture.hpp"

namespace detr = libreyolo::sdk::detr;
namespace fixture = libreyolo::test::detr;

namespace {

double max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

}  // namespace

TEST_CASE("FDR: the weighting function is odd-symmetric, zero in the middle, +-2 up reg_scale at the ends") {
  const auto w = detr::weighting_function(32, torch::tensor({0.5}), torch::tensor({4.0}));
  REQUIRE(w.size(0) == 33);
  CHECK(w[16].item<double>() == 0.0);
  CHECK(w[0].item<double>() == doctest::Approx(-4.0));
  CHECK(w[32].item<double>() == doctest::Approx(4.0));
  CHECK(max_difference(w, -w.flip({0})) < 1e-6);
  // Strictly increasing: every bin distinct, so bin interpolation never divides by zero.
  CHECK((w.slice(0, 1) - w.slice(0, 0, 32)).min().item<double>() > 0.0);
  CHECK_THROWS(detr::weighting_function(31, torch::tensor({0.5}), torch::tensor({4.0})));
}

TEST_CASE("FDR: the two bin weights interpolate the edge distance exactly") {
  const auto up = torch::tensor({0.5}), reg_scale = torch::tensor({4.0});
  const auto w = detr::weighting_function(32, up, reg_scale);
  // Reference box centred at 0.5 with side 0.4: x_unit = 0.1; a left edge at distance W(20).
  const auto reference = torch::tensor({{0.5, 0.5, 0.4, 0.4}});
  const double left_distance = w[20].item<double>();
  const double x1 = 0.5 - (left_distance + 2.0) * 0.1;
  const auto target = torch::tensor({{x1, 0.3, 0.7, 0.7}}, torch::kFloat32);
  const auto bins = detr::box_to_edge_bins(reference, target, 32, reg_scale, up);
  // float rounding may land it just below W(20) (bin 19, all weight right) or on it (bin 20).
  const auto left_bin = static_cast<int64_t>(bins.bin[0].item<double>());
  CHECK((left_bin == 19 || left_bin == 20));
  const double rebuilt = w[left_bin].item<double>() * bins.weight_left[0].item<double>() +
                         w[left_bin + 1].item<double>() * bins.weight_right[0].item<double>();
  CHECK(rebuilt == doctest::Approx(left_distance).epsilon(1e-5));
  CHECK(bins.weight_left[0].item<double>() + bins.weight_right[0].item<double>() == doctest::Approx(1.0));
}

TEST_CASE("FDR parity: weighting function, integral, distance to box and edge bins equal LibreYOLO's") {
  const auto json = fixture::read_fixture("fdr.json");
  const auto reg_max = static_cast<int64_t>(json["reg_max"].number);
  const auto up = torch::tensor({json["up"].number}, torch::kFloat32);
  for (const auto& c : json["cases"].items) {
    CAPTURE(c["reg_scale"].number);
    const auto reg_scale = torch::tensor({c["reg_scale"].number}, torch::kFloat32);
    const auto project = detr::weighting_function(reg_max, up, reg_scale);
    CHECK(max_difference(project, fixture::to_tensor(c["project"])) < 1e-5);
    const auto integral = detr::integrate_distribution(fixture::to_tensor(c["logits"]), project);
    CHECK(max_difference(integral, fixture::to_tensor(c["integral"])) < 1e-5);
    const auto boxes = detr::distance_to_box(fixture::to_tensor(c["reference"]), integral, reg_scale);
    CHECK(max_difference(boxes, fixture::to_tensor(c["boxes"])) < 1e-5);
    const auto bins = detr::box_to_edge_bins(fixture::to_tensor(c["points"]), fixture::to_tensor(c["target"]), reg_max,
                                             reg_scale, up);
    CHECK(max_difference(bins.bin, fixture::to_tensor(c["bins"])) < 1e-5);
    CHECK(max_difference(bins.weight_right, fixture::to_tensor(c["weight_right"])) < 1e-5);
    CHECK(max_difference(bins.weight_left, fixture::to_tensor(c["weight_left"])) < 1e-5);
  }
}
