#pragma once
// What an option is: its name, type, default, allowed values and one line of help. Tables
// of these (train_options.hpp) are the single source for parsing, validation, `help`
// output and docs/cli.md.

#include <string>
#include <variant>
#include <vector>

#include "libreyolo/sdk/recipe.hpp"

namespace libreyolo::core::config {

enum class OptionType {
  boolean,  // true/false, also yes/no, on/off, 1/0
  integer,
  number,
  text,
  choice,   // one of OptionSpec::choices
  range,    // "low,high" (YAML: [low, high])
};

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::text;
  std::string default_value;  // as the user would type it; empty text means "unset"
  std::string help;
  std::vector<std::string> choices;  // for OptionType::choice
};

using OptionValue = std::variant<bool, long long, double, std::string, sdk::Range>;

// "an integer", "true or false", "one of sgd, adamw", ...: used in error messages.
std::string describe_type(const OptionSpec& spec);

// Parses `text` as the spec's type. `origin` says where the text came from ("the command
// line", "cfg file x.yaml", "family yolo9's recipe") for the error message, which names the
// option, the value, the expected type and an example.
OptionValue parse_option_value(const OptionSpec& spec, const std::string& text,
                               const std::string& origin);

// The canonical text of a value (round-trips through parse_option_value).
std::string format_option_value(const OptionValue& value);

}  // namespace libreyolo::core::config
