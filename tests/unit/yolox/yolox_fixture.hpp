#pragma once
// Reading tests/fixtures/yolox/*.json (written by tests/python/yolox_reference_keys.py) and the
// deterministic tensors both sides build from the same formulas.

#include <libreyolo/sdk/targets.hpp>

#include "../deterministic_weights.hpp"
#include "../fixture_json.hpp"
#include <torch/nn/module.h>
#include <torch/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace libreyolo::test::yolox {

using libreyolo::test::Json;
using libreyolo::test::parse_json;

// The fixture file `name` in tests/fixtures/yolox/, or null when it does not exist.
std::unique_ptr<Json> read_fixture(const std::string& name);
std::string fixture_dir();

std::vector<int64_t> to_shape(const Json& array);

using libreyolo::test::fill_deterministic;
using libreyolo::test::pattern;

// Checks shape, sum, abs_sum (relative 1e-4 of abs_sum) and the first 32 values (1e-4) against
// the Python script's summarize().
// `tolerance`: relative; gradients get more (LibTorch versions order their reductions differently).
// elements_at_tensor_scale: each listed element within tolerance x max(1, the tensor's largest
// magnitude) instead of tolerance x max(1, |element|) (deep gradients, see test_yolox_loss.cpp).
void check_summary(const torch::Tensor& actual, const Json& expected, const std::string& what,
                   double tolerance = 1e-4, bool elements_at_tensor_scale = false);

// Target rows (class, cx, cy, w, h) from a flat list: [n, 5] float32.
torch::Tensor box_rows(const std::vector<float>& values);

// reference_loss.json's "crafted" case: the raw head outputs per level [B, 5 + C, H, W] that the
// Python script's crafted_raw_outputs() builds from pattern(), and its padded targets.
std::vector<torch::Tensor> crafted_raw_outputs(const Json& crafted);
libreyolo::sdk::Targets crafted_targets(const Json& crafted);

}  // namespace libreyolo::test::yolox
