#pragma once
// What the user asked for, before the family is known: the command line plus the cfg= file
// it names. The family (and so its recipe layer) depends on model=, which may itself come
// from the cfg file, hence two steps: read_user_options(), then resolve_options().

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/config/command_line.hpp"
#include "libreyolo/core/config/resolved_options.hpp"

namespace libreyolo::core::config {

struct UserOptions {
  std::vector<std::pair<std::string, std::string>> command_line;
  std::vector<std::pair<std::string, std::string>> cfg_file;  // empty without cfg=
  std::string cfg_path;
  std::vector<std::string> positionals;

  // The user's value for `key` (command line first, then cfg file), as raw text.
  std::optional<std::string> lookup(const std::string& key) const;
};

UserOptions read_user_options(const std::vector<std::string>& args, const OptionTable& table);

// Applies the precedence global default < family < cfg file < command line. The family layer
// is typed (plugins::family_option_defaults): its values are checked, not parsed.
ResolvedOptions resolve_options(const OptionTable& table, const UserOptions& user,
                                const std::string& family_origin, const NamedValues& family);

}  // namespace libreyolo::core::config
