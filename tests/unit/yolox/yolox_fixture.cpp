#include "yolox_fixture.hpp"

#include "../torch_doctest.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include "support/test_paths.hpp"

namespace libreyolo::test::yolox {

std::string fixture_dir() {
  return std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/yolox";
}

std::unique_ptr<Json> read_fixture(const std::string& name) {
  std::ifstream in(fixture_dir() + "/" + name);
  if (!in) return nullptr;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return std::make_unique<Json>(parse_json(buffer.str()));
}

std::vector<int64_t> to_shape(const Json& array) {
  std::vector<int64_t> shape;
  for (const auto& item : array.items) shape.push_back(static_cast<int64_t>(item.number));
  return shape;
}


void check_summary(const torch::Tensor& actual, const Json& expected, const std::string& what, double tolerance,
                   bool elements_at_tensor_scale) {
  CAPTURE(what);
  REQUIRE(actual.sizes().vec() == to_shape(expected["shape"]));
  const auto flat = actual.to(torch::kFloat64).reshape(-1);
  const double abs_sum = flat.abs().sum().item<double>(), expected_abs_sum = expected["abs_sum"].number;
  CHECK(abs_sum == doctest::Approx(expected_abs_sum).epsilon(tolerance));
  CHECK(std::abs(flat.sum().item<double>() - expected["sum"].number) <= tolerance * expected_abs_sum + tolerance);
  const double scale = elements_at_tensor_scale ? std::max(1.0, flat.abs().max().item<double>()) : 1.0;
  const auto& head = expected["head"].items;
  for (size_t i = 0; i < head.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(flat[static_cast<int64_t>(i)].item<double>() - head[i].number) <=
          tolerance * std::max(scale, std::abs(head[i].number)));
  }
}

torch::Tensor box_rows(const std::vector<float>& values) {
  return torch::tensor(values).view({-1, 5});
}

std::vector<torch::Tensor> crafted_raw_outputs(const Json& crafted) {
  const auto imgsz = static_cast<int64_t>(crafted["imgsz"].number);
  const auto classes = static_cast<int64_t>(crafted["num_classes"].number);
  const auto batch = static_cast<int64_t>(crafted["targets"].items.size());
  std::vector<torch::Tensor> outputs;
  const int64_t strides[] = {8, 16, 32};
  for (int64_t level = 0; level < 3; ++level) {
    const int64_t side = imgsz / strides[level], channels = 5 + classes;
    const auto base = pattern(batch * channels * side * side, 2000 + level).view({batch, channels, side, side});
    const auto log_size = std::log(20.0 / static_cast<double>(strides[level]));
    outputs.push_back(torch::cat({0.5 + 0.4 * base.narrow(1, 0, 2), log_size + 0.5 * base.narrow(1, 2, 2),
                                  3.0 * base.narrow(1, 4, channels - 4)},
                                 1));
  }
  return outputs;
}

libreyolo::sdk::Targets crafted_targets(const Json& crafted) {
  std::vector<torch::Tensor> per_image;
  for (const auto& image : crafted["targets"].items) {
    std::vector<float> values;
    for (const auto& box : image.items)
      for (const auto& v : box.items) values.push_back(static_cast<float>(v.number));
    per_image.push_back(torch::tensor(values).view({static_cast<int64_t>(image.items.size()), 5}));
  }
  return libreyolo::sdk::pad_targets(per_image, torch::kCPU);
}

}  // namespace libreyolo::test::yolox
