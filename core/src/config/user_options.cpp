#include "libreyolo/core/config/user_options.hpp"

#include "libreyolo/core/config/cfg_file.hpp"

namespace libreyolo::core::config {

std::optional<std::string> UserOptions::lookup(const std::string& key) const {
  for (const auto* layer : {&command_line, &cfg_file}) {
    for (const auto& [k, v] : *layer) {
      if (k == key) return v;
    }
  }
  return std::nullopt;
}

UserOptions read_user_options(const std::vector<std::string>& args, const OptionTable& table) {
  auto parsed = parse_command_line(args, table);
  UserOptions user;
  user.command_line = std::move(parsed.options);
  user.positionals = std::move(parsed.positionals);
  if (auto cfg = user.lookup("cfg"); cfg && !cfg->empty()) {
    user.cfg_path = *cfg;
    user.cfg_file = read_cfg_file(*cfg, table);
  }
  // Validate the command line's values now, so a typo fails before any plugin loads.
  OptionLayers check(table);
  check.set_text(OptionSource::cfg_file, "cfg file " + user.cfg_path, user.cfg_file);
  check.set_text(OptionSource::command_line, "the command line", user.command_line);
  return user;
}

ResolvedOptions resolve_options(const OptionTable& table, const UserOptions& user,
                                const std::string& family_origin, const NamedValues& family) {
  OptionLayers layers(table);
  layers.set_values(OptionSource::family, family_origin, family);
  layers.set_text(OptionSource::cfg_file, "cfg file " + user.cfg_path, user.cfg_file);
  layers.set_text(OptionSource::command_line, "the command line", user.command_line);
  return layers.resolve();
}

}  // namespace libreyolo::core::config
