#include "dfine_fixture.hpp"

#include <torch/torch.h>

#include <fstream>
#include <sstream>
#include <unordered_set>

#include "../deterministic_weights.hpp"
#include "../torch_doctest.hpp"
#include "support/test_paths.hpp"

namespace libreyolo::test::dfine {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// State the architecture defines rather than learns (the Python script keeps it too).
bool kept_by_fill(const std::string& key) {
  for (const char* suffix : {"anchors", "valid_mask", "num_points_scale", ".up", ".reg_scale"})
    if (ends_with(key, suffix)) return true;
  return false;
}

void collect(const torch::nn::Module& module, const std::string& prefix,
             std::vector<std::pair<std::string, std::vector<int64_t>>>& rows) {
  for (const auto& item : module.named_parameters(/*recurse=*/false))
    rows.emplace_back(prefix + item.key(), item.value().sizes().vec());
  for (const auto& item : module.named_buffers(/*recurse=*/false))
    rows.emplace_back(prefix + item.key(), item.value().sizes().vec());
  for (const auto& child : module.named_children()) collect(*child.value(), prefix + child.key() + ".", rows);
}

}  // namespace

std::optional<Json> read_fixture(const std::string& name) {
  const auto path = std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/dfine/" + name;
  std::ifstream in(path);
  if (!in) {
    MESSAGE("skipped: no " << path << " (tests/python/dfine_reference_keys.py or dfine_reference_outputs.py writes it)");
    return std::nullopt;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_json(buffer.str());
}

std::vector<int64_t> to_shape(const Json& array) {
  std::vector<int64_t> shape;
  for (const auto& item : array.items) shape.push_back(static_cast<int64_t>(item.number));
  return shape;
}

torch::Tensor numbers(const Json& array, torch::Dtype dtype) {
  std::vector<double> v;
  for (const auto& item : array.items) v.push_back(item.number);
  return torch::tensor(v, torch::kFloat64).to(dtype);
}

std::vector<std::pair<std::string, std::vector<int64_t>>> ordered_state(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> rows;
  collect(module, "", rows);
  return rows;
}

int64_t parameter_count(const torch::nn::Module& module) {
  std::unordered_set<const void*> seen;
  int64_t count = 0;
  for (const auto& p : module.parameters())
    if (seen.insert(p.unsafeGetTensorImpl()).second) count += p.numel();
  return count;
}

std::vector<std::string> frozen_parameter_names(const torch::nn::Module& module) {
  std::unordered_set<const void*> seen;
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters(/*recurse=*/true))
    if (seen.insert(item.value().unsafeGetTensorImpl()).second && !item.value().requires_grad())
      names.push_back(item.key());
  return names;
}

std::shared_ptr<libreyolo::dfine::DfineDetector> deterministic_model(const Json& fixture) {
  const auto height = static_cast<int64_t>(fixture["height"].number), width = static_cast<int64_t>(fixture["width"].number);
  auto model = std::make_shared<libreyolo::dfine::DfineDetector>(
      fixture["size"].text, static_cast<int64_t>(fixture["num_classes"].number), std::array<int64_t, 2>{height, width});
  std::vector<std::pair<torch::Tensor, torch::Tensor>> kept;
  for (const auto& item : model->named_parameters(true))
    if (kept_by_fill(item.key())) kept.emplace_back(item.value(), item.value().clone());
  for (const auto& item : model->named_buffers(true))
    if (kept_by_fill(item.key())) kept.emplace_back(item.value(), item.value().clone());
  libreyolo::test::fill_deterministic(*model, /*scale_matrices=*/true);
  torch::NoGradGuard no_grad;
  for (auto& [tensor, value] : kept) tensor.copy_(value);
  return model;
}

torch::Tensor fixture_images(const Json& fixture) {
  const auto b = static_cast<int64_t>(fixture["batch"].number);
  const auto h = static_cast<int64_t>(fixture["height"].number), w = static_cast<int64_t>(fixture["width"].number);
  return (0.5 + 0.5 * libreyolo::test::pattern(b * 3 * h * w, 1000)).view({b, 3, h, w});
}

sdk::Targets fixture_targets(const Json& fixture) {
  const double h = fixture["height"].number, w = fixture["width"].number;
  const double scale[4] = {w, h, w, h};
  std::vector<torch::Tensor> per_image;
  for (const auto& image : fixture["targets"].items) {
    std::vector<float> rows;
    for (const auto& box : image.items) {
      rows.push_back(static_cast<float>(box.items[0].number));
      for (int k = 1; k < 5; ++k) rows.push_back(static_cast<float>(box.items[static_cast<size_t>(k)].number * scale[k - 1]));
    }
    per_image.push_back(torch::tensor(rows).view({-1, 5}));
  }
  return sdk::pad_targets(per_image, torch::kCPU);
}

}  // namespace libreyolo::test::dfine
