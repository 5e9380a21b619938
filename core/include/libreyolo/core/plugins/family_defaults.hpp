#pragma once
// Turns what a family declares (policy + recipe + default input size) into the "family"
// option layer, so the same validation and precedence apply to it as to user input. The
// values stay typed: a recipe's 0.1 reaches TrainConfig as the same double, never as text.

#include <string>

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/plugins/family_registry.hpp"

namespace libreyolo::core::plugins {

// The family layer for the options `table` has (a val table has no lr0, so a recipe's lr0 is
// left out there). The one place that reads a family's policy and recipe as options: a new
// recipe member, or one that leaves the recipe, changes this function only.
config::NamedValues family_option_defaults(const LoadedFamily& family, const std::string& size,
                                           const config::OptionTable& table);

}  // namespace libreyolo::core::plugins
