#pragma once
// Parses a command's arguments in both styles users know:
//   LibreYOLO / Ultralytics style:   model=yolo9s epochs=3 amp=false
//   GNU style:                       --model yolo9s --epochs=3 --no-amp? (no: --amp false)
// A bare boolean flag (--exist_ok) means true. Words without '=' or '--' are positional
// (profile run DATA). Unknown keys fail with a suggestion; a key given twice fails.

#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/config/option_table.hpp"

namespace libreyolo::core::config {

struct CommandLine {
  std::vector<std::pair<std::string, std::string>> options;  // canonical key, raw text
  std::vector<std::string> positionals;
};

CommandLine parse_command_line(const std::vector<std::string>& args, const OptionTable& table);

}  // namespace libreyolo::core::config
