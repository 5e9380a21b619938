#pragma once
// Just enough JSON for the test fixtures that LibreYOLO's Python code wrote
// (tests/fixtures/*/): objects, arrays, strings without \u escapes, numbers, literals.

#include <string>
#include <utility>
#include <vector>

namespace libreyolo::test {

struct Json {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  double number = 0.0;
  std::string text;
  std::vector<Json> items;                           // array elements
  std::vector<std::pair<std::string, Json>> fields;  // object members, in order

  const Json& operator[](const std::string& key) const;  // throws if absent
  bool has(const std::string& key) const;
};

// Throws std::runtime_error on malformed text.
Json parse_json(const std::string& text);

}  // namespace libreyolo::test
