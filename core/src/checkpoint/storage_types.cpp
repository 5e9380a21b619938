#include "libreyolo/core/checkpoint/storage_types.hpp"

#include <stdexcept>
#include <utility>

namespace libreyolo::core::checkpoint {
namespace {

// torch/storage.py names the legacy typed storages after the old TH type names, so int8 is
// "Char" and uint8 is "Byte". Only dtypes a detector checkpoint can hold are listed.
constexpr std::pair<const char*, c10::ScalarType> kStorages[] = {
    {"FloatStorage", c10::kFloat},   {"DoubleStorage", c10::kDouble},
    {"HalfStorage", c10::kHalf},     {"BFloat16Storage", c10::kBFloat16},
    {"LongStorage", c10::kLong},     {"IntStorage", c10::kInt},
    {"ShortStorage", c10::kShort},   {"CharStorage", c10::kChar},
    {"ByteStorage", c10::kByte},     {"BoolStorage", c10::kBool},
};

}  // namespace

std::optional<c10::ScalarType> storage_dtype(const std::string& qualified_name) {
  const std::string prefix = "torch.";
  if (qualified_name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string name = qualified_name.substr(prefix.size());
  if (name == "UntypedStorage") return c10::kByte;
  for (const auto& entry : kStorages) {
    if (name == entry.first) return entry.second;
  }
  return std::nullopt;
}

std::string storage_class_name(c10::ScalarType dtype) {
  for (const auto& entry : kStorages) {
    if (entry.second == dtype) return entry.first;
  }
  throw std::runtime_error(std::string("tensors of dtype ") + c10::toString(dtype) +
                           " cannot be saved in a checkpoint");
}

}  // namespace libreyolo::core::checkpoint
