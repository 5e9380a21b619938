#include "rtmdet_fixture.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include "support/test_paths.hpp"

namespace libreyolo::test::rtmdet {

std::string fixture_dir() {
  return std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/rtmdet";
}

Json read_fixture(const std::string& name) {
  const auto path = fixture_dir() + "/" + name;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path + " (committed; tests/python/rtmdet_reference_keys.py writes it)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_json(buffer.str());
}

std::vector<int64_t> to_shape(const Json& array) {
  std::vector<int64_t> shape;
  shape.reserve(array.items.size());
  for (const auto& item : array.items) shape.push_back(static_cast<int64_t>(item.number));
  return shape;
}

std::vector<float> to_values(const Json& array) {
  std::vector<float> values;
  values.reserve(array.items.size());
  for (const auto& item : array.items) values.push_back(static_cast<float>(item.number));
  return values;
}

}  // namespace libreyolo::test::rtmdet
