#include "rtdetr_fixture.hpp"

#include <libreyolo/sdk/backbones/hgnetv2.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "../deterministic_weights.hpp"
#include "presnet.hpp"
#include "support/test_paths.hpp"

namespace libreyolo::test::rtdetr {

Json read_fixture(const std::string& name) {
  const auto path = std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/rtdetr/" + name;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path + " (committed; tests/python/rtdetr_reference_keys.py writes it)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_json(buffer.str());
}

std::vector<int64_t> to_shape(const Json& array) {
  std::vector<int64_t> shape;
  for (const auto& item : array.items) shape.push_back(static_cast<int64_t>(item.number));
  return shape;
}

const std::vector<SizeSpec>& sizes() {
  static const std::vector<SizeSpec> table = {
      {"r18", 18, "", false, 256, 1024, 0.5}, {"r34", 34, "", false, 256, 1024, 0.5},
      {"r50", 50, "", true, 256, 1024, 1.0},  {"r50m", 50, "", true, 256, 1024, 0.5},
      {"r101", 101, "", true, 384, 2048, 1.0}, {"l", 0, "L", true, 256, 1024, 1.0},
      {"x", 0, "X", true, 384, 2048, 1.0},
  };
  return table;
}

const SizeSpec& size_spec(const std::string& size) {
  for (const auto& spec : sizes())
    if (spec.size == size) return spec;
  throw std::invalid_argument("no RT-DETR size " + size);
}

BackboneEncoder::BackboneEncoder(const SizeSpec& spec) {
  // RT-DETR freezes the stem (freeze_at = 0) at every size.
  if (spec.depth > 0) {
    backbone = register_module("backbone", libreyolo::rtdetr::make_presnet(spec.depth, spec.freeze_norm, 0));
  } else {
    backbone = register_module("backbone", sdk::backbones::make_hgnetv2(spec.arch, spec.freeze_norm, 0));
  }
  libreyolo::rtdetr::HybridEncoderOptions options;
  options.in_channels = backbone->out_channels();
  options.hidden_dim = spec.hidden_dim;
  options.dim_feedforward = spec.dim_feedforward;
  options.expansion = spec.expansion;
  encoder = register_module("encoder", libreyolo::rtdetr::HybridEncoder(options));
}

namespace {

void collect(const torch::nn::Module& module, const std::string& prefix,
             std::vector<std::pair<std::string, std::vector<int64_t>>>& rows) {
  for (const auto& item : module.named_parameters(/*recurse=*/false))
    rows.emplace_back(prefix + item.key(), item.value().sizes().vec());
  for (const auto& item : module.named_buffers(/*recurse=*/false))
    rows.emplace_back(prefix + item.key(), item.value().sizes().vec());
  for (const auto& child : module.named_children()) collect(*child.value(), prefix + child.key() + ".", rows);
}

}  // namespace

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

torch::Tensor fixture_images(int64_t batch, int64_t height, int64_t width) {
  return (0.5 + 0.5 * libreyolo::test::pattern(batch * 3 * height * width, 1000)).view({batch, 3, height, width});
}

}  // namespace libreyolo::test::rtdetr
