#pragma once
// What the D-FINE tests share: tests/fixtures/dfine/*.json (written by
// tests/python/dfine_reference_keys.py and dfine_reference_outputs.py from LibreYOLO's modules),
// the state in PyTorch's state_dict() order, and the deterministic model, input and targets of
// the reference fixture.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../fixture_json.hpp"
#include "dfine_detector.hpp"
#include "libreyolo/sdk/targets.hpp"

namespace libreyolo::test::dfine {

using libreyolo::test::Json;

// The parsed tests/fixtures/dfine/<name>, or nothing (with a MESSAGE naming the script that
// writes it) when the file is absent: the tests that need it then skip.
std::optional<Json> read_fixture(const std::string& name);
std::vector<int64_t> to_shape(const Json& array);
torch::Tensor numbers(const Json& array, torch::Dtype dtype = torch::kFloat32);

// (key, shape) in PyTorch's state_dict() order: a module's own parameters, then its own
// buffers, then each child's, recursively (aliases listed under every name, as PyTorch does).
std::vector<std::pair<std::string, std::vector<int64_t>>> ordered_state(const torch::nn::Module& module);
// sum(p.numel() for p in module.parameters()): each tensor once.
int64_t parameter_count(const torch::nn::Module& module);
// Names of the parameters without gradient, each tensor once (its first name).
std::vector<std::string> frozen_parameter_names(const torch::nn::Module& module);

// The reference fixture's model: `size` at its class count and input size, every state tensor
// filled by fill_deterministic(scale_matrices) except the architecture's constants (anchors,
// valid_mask, num_points_scale, up, reg_scale), as tests/python/dfine_reference_outputs.py does.
std::shared_ptr<libreyolo::dfine::DfineDetector> deterministic_model(const Json& fixture);
// 0.5 + 0.5 * pattern(count, 1000) as [batch, 3, height, width].
torch::Tensor fixture_images(const Json& fixture);
// The fixture's normalised targets in pixels of the input, as the loader gives them.
sdk::Targets fixture_targets(const Json& fixture);

}  // namespace libreyolo::test::dfine
