#include "detr_fixture.hpp"

#include <torch/torch.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>
#include "support/test_paths.hpp"

namespace libreyolo::test::detr {

Json read_fixture(const std::string& name) {
  const auto path = std::string(libreyolo::test_paths::source_dir()) + "/tests/fixtures/detr/" + name;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path + " (committed; tests/python/rtdetr_ops_parity.py writes it)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_json(buffer.str());
}

torch::Tensor to_tensor(const Json& entry, torch::ScalarType dtype) {
  std::vector<int64_t> shape;
  for (const auto& item : entry["shape"].items) shape.push_back(static_cast<int64_t>(item.number));
  std::vector<double> values;
  values.reserve(entry["values"].items.size());
  for (const auto& item : entry["values"].items) values.push_back(item.number);
  return torch::tensor(values, torch::kFloat64).view(shape).to(dtype);
}

}  // namespace libreyolo::test::detr
