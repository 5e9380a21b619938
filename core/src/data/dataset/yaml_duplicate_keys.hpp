#pragma once
// yaml-cpp keeps both entries of a key written twice and `node[key]` answers with the first, so
// a data.yaml whose second `train:` was the intended one trained on the first without a word.

#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace libreyolo::core::data {

// Throws libreyolo::core::Error naming the key and both of its lines when a map anywhere in
// `node` (the top level, `names`, ...) has the same scalar key twice.
void refuse_duplicate_keys(const std::filesystem::path& yaml, const YAML::Node& node);

}  // namespace libreyolo::core::data
