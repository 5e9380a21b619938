#pragma once
// Turns what a family declares (policy + recipe + default input size) into the "family"
// option layer, so the same validation and precedence apply to it as to user input.

#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/plugins/family_registry.hpp"

namespace libreyolo::core::plugins {

// Key/value pairs for the options `table` has (a val table has no lr0, so a recipe's lr0 is
// left out there).
std::vector<std::pair<std::string, std::string>> family_option_defaults(
    const LoadedFamily& family, const std::string& size, const config::OptionTable& table);

}  // namespace libreyolo::core::plugins
