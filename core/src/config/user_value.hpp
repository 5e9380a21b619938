#pragma once
// Reading a value a user wrote (the command line, a cfg file).

#include <string>

#include "libreyolo/core/config/option_spec.hpp"

namespace libreyolo::core::config {

// As parse_option_value, but an empty value is an error of its own: `epochs=` (often an unset
// shell variable: epochs=$EPOCHS) must not read as "expected an integer", nor set a text option
// to nothing.
OptionValue parse_user_value(const OptionSpec& spec, const std::string& text, const std::string& origin);

}  // namespace libreyolo::core::config
