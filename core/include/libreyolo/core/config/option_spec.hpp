#pragma once
// What an option is: its name, type, default, allowed values and one line of help. Every
// option is declared once, in core/src/config/train_options.cpp; the command tables built from
// that list are the single source for parsing, validation, `help` output and docs/cli.md.

#include <string>
#include <utility>
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
  std::vector<std::string> choices{};  // for OptionType::choice
  // Other spellings of a choice, as another tool writes them: LibreYOLO's cache=true means
  // cache=ram, its scheduler=flat_cosine is our flatcosine. Read as the choice they name.
  std::vector<std::pair<std::string, std::string>> choice_synonyms{};
};

using OptionValue = std::variant<bool, long long, double, std::string, sdk::Range>;
// Option names with typed values: a layer that is data, not text (a family's policy and recipe).
using NamedValues = std::vector<std::pair<std::string, OptionValue>>;

// "an integer", "true or false", "one of sgd, adamw", ...: used in error messages.
std::string describe_type(const OptionSpec& spec);

// Parses `text` as the spec's type. `origin` says where the text came from ("the command
// line", "cfg file x.yaml", "family yolo9's recipe") for the error message, which names the
// option, the value, the expected type and an example.
OptionValue parse_option_value(const OptionSpec& spec, const std::string& text,
                               const std::string& origin);

// Checks a typed value (a family's recipe field) against the spec as parse_option_value checks
// text: the same type, a listed choice (returned in the table's spelling), a finite number,
// low <= high. An integer is accepted for a number option. Errors read like parse errors.
OptionValue check_option_value(const OptionSpec& spec, const OptionValue& value,
                               const std::string& origin);

// The canonical text of a value (round-trips through parse_option_value).
std::string format_option_value(const OptionValue& value);

}  // namespace libreyolo::core::config
