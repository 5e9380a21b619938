// MSDeformableAttention against LibreYOLO's, on tests/fixtures/detr/ms_deform_attn.json (written
// by tests/python/rtdetr_ops_parity.py): the same initial sampling-offset bias, and with the same
// weights the same outputs and input gradients for 2- and 4-coordinate reference points.
#include "../torch_doctest.hpp"

#include <libreyolo/sdk/detr/ms_deform_attn.hpp>

#include "detr_fixture.hpp"

#include <string>

namespace detr = libreyolo::sdk::detr;
namespace fixture = libreyolo::test::detr;

namespace {

double max_difference(const torch::Tensor& a, const torch::Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

detr::MSDeformableAttention module_from(const fixture::Json& json) {
  const auto& config = json["config"];
  detr::MSDeformableAttention attention(
      static_cast<int64_t>(config["embed_dim"].number), static_cast<int64_t>(config["num_heads"].number),
      static_cast<int64_t>(config["num_levels"].number), static_cast<int64_t>(config["num_points"].number));
  return attention;
}

detr::SpatialShapes shapes_from(const fixture::Json& json) {
  detr::SpatialShapes shapes;
  for (const auto& level : json["spatial_shapes"].items)
    shapes.push_back({static_cast<int64_t>(level.items[0].number), static_cast<int64_t>(level.items[1].number)});
  return shapes;
}

}  // namespace

TEST_CASE("MSDeformableAttention parity: LibreYOLO's initial sampling-offset bias") {
  const auto json = fixture::read_fixture("ms_deform_attn.json");
  auto attention = module_from(json);
  CHECK(max_difference(attention->sampling_offsets->bias, fixture::to_tensor(json["initial_sampling_offsets_bias"])) ==
        0.0);
}

TEST_CASE("MSDeformableAttention parity: outputs and gradients equal LibreYOLO's within 1e-5") {
  const auto json = fixture::read_fixture("ms_deform_attn.json");
  auto attention = module_from(json);
  {
    torch::NoGradGuard no_grad;
    for (auto& item : attention->named_parameters()) item.value().copy_(fixture::to_tensor(json["weights"][item.key()]));
  }
  const auto shapes = shapes_from(json);
  for (const auto& entry : json["cases"].items) {
    const auto& name = entry["name"].text;
    CAPTURE(name);
    auto query = fixture::to_tensor(entry["query"]).requires_grad_();
    auto value = fixture::to_tensor(entry["value"]).requires_grad_();
    auto reference = fixture::to_tensor(entry["reference_points"]).requires_grad_();
    const auto mask = entry.has("value_mask") ? fixture::to_tensor(entry["value_mask"], torch::kBool) : torch::Tensor();
    const auto output = attention->forward(query, reference, value, shapes, mask);
    (output * fixture::to_tensor(entry["upstream"])).sum().backward();
    CHECK(max_difference(output, fixture::to_tensor(entry["output"])) < 1e-5);
    CHECK(max_difference(query.grad(), fixture::to_tensor(entry["grad_query"])) < 1e-5);
    CHECK(max_difference(value.grad(), fixture::to_tensor(entry["grad_value"])) < 1e-5);
    CHECK(max_difference(reference.grad(), fixture::to_tensor(entry["grad_reference_points"])) < 1e-5);
  }
}
