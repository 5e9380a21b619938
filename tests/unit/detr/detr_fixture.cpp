#include "detr_fixture.hpp"

#include <torch/torch.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace libreyolo::test::detr {

Json read_fixture(const std::string& name) {
#ifdef LIBREYOLO_TEST_SOURCE_DIR
  const auto path = std::string(LIBREYOLO_TEST_SOURCE_DIR) + "/tests/fixtures/detr/" + name;
#else
  const auto path = "tests/fixtures/detr/" + name;
#endif
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
