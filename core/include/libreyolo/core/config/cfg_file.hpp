#pragma once
// cfg=file.yaml: a flat YAML mapping of option defaults, validated like the command line.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/config/option_table.hpp"

namespace libreyolo::core::config {

// Canonical key and the value as text (a YAML list [a, b] becomes "a,b").
std::vector<std::pair<std::string, std::string>> read_cfg_file(const std::filesystem::path& file,
                                                               const OptionTable& table);

}  // namespace libreyolo::core::config
