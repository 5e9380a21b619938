#pragma once
// Reading tests/fixtures/rtmdet/reference_keys_<size>.json (written by
// tests/python/rtmdet_reference_keys.py from LibreYOLO's own nn.py). The fixtures are committed:
// a missing or unreadable file is an error, not a reason to skip.

#include "../fixture_json.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::test::rtmdet {

using libreyolo::test::Json;

std::string fixture_dir();

// The parsed fixture file `name` in fixture_dir(); throws std::runtime_error naming the path
// (and the script that writes it) when the file cannot be read.
Json read_fixture(const std::string& name);

// A JSON array of numbers as a shape or a flat list of values.
std::vector<int64_t> to_shape(const Json& array);
std::vector<float> to_values(const Json& array);

}  // namespace libreyolo::test::rtmdet
