#pragma once
// Reading tests/fixtures/detr/*.json, written by tests/python/rtdetr_ops_parity.py from
// LibreYOLO's RT-DETR modules. The fixtures are committed: a missing file is an error.

#include "../fixture_json.hpp"

#include <torch/types.h>

#include <string>

namespace libreyolo::test::detr {

using libreyolo::test::Json;

// The parsed fixture `name` in tests/fixtures/detr/; throws std::runtime_error naming the path
// and the script that writes it when the file cannot be read.
Json read_fixture(const std::string& name);

// A {"shape": [...], "values": [...]} entry as a CPU tensor of `dtype`.
torch::Tensor to_tensor(const Json& entry, torch::ScalarType dtype = torch::kFloat32);

}  // namespace libreyolo::test::detr
