#pragma once
// The names torch.save gives tensor storages in a pickle ("torch.FloatStorage", ...) and the
// dtypes they stand for. Both our pickle reader and writer use this one table, so what we
// write is what torch.load expects and what Python writes is what we read.

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

namespace libreyolo::core::checkpoint {

// "torch.FloatStorage" -> kFloat. "torch.UntypedStorage" (bytes) -> kByte. Unknown: nullopt.
std::optional<c10::ScalarType> storage_dtype(const std::string& qualified_name);

// kFloat -> "FloatStorage" (the class name inside module "torch"). Throws std::runtime_error
// for a dtype we do not save (complex, quantized, float8): no checkpoint of ours needs them.
std::string storage_class_name(c10::ScalarType dtype);

}  // namespace libreyolo::core::checkpoint
