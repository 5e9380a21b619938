#include "libreyolo/core/config/train_config.hpp"

#include <climits>

#include "libreyolo/core/config/resolved_options.hpp"
#include "libreyolo/core/config/train_option_list.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {
namespace {

bool set_by_user(config::OptionSource source) {
  return source == config::OptionSource::cfg_file || source == config::OptionSource::command_line;
}

}  // namespace

const TrainConfig& TrainConfig::built_in_defaults() {
  // Parsed once from the option list's default texts: the same texts `help` prints and the
  // layers resolve, so the struct cannot disagree with them.
  static const TrainConfig defaults = [] {
    TrainConfig blank{Blank{}};
    for (const auto& option : config::train_option_list()) {
      config::write_field(blank, option.field,
                          config::parse_option_value(option.spec, option.spec.default_value, "the built-in defaults"));
    }
    return blank;
  }();
  return defaults;
}

TrainConfig::TrainConfig() : TrainConfig(built_in_defaults()) {}

TrainConfig unchecked_train_config(const ResolvedOptions& options) {
  TrainConfig c;
  for (const auto& option : config::train_option_list()) {
    const auto& resolved = options.at(option.spec.name);
    if (!config::fits_field(option.field, resolved.value)) {
      // Narrowing would hide the user's value: report it with the option's own range.
      if (option.check) option.check(option.spec.name, resolved.value);
      throw Error("option " + option.spec.name + "=" + format_option_value(resolved.value) + " is out of range",
                  "expected an integer from " + std::to_string(INT_MIN) + " to " + std::to_string(INT_MAX),
                  "pass a value in that range");
    }
    config::write_field(c, option.field, resolved.value);
    if (set_by_user(resolved.source)) c.user_set.insert(option.spec.name);
  }
  return c;
}

void check_train_config(const TrainConfig& c) {
  for (const auto& option : config::train_option_list()) {
    if (option.check) option.check(option.spec.name, config::read_field(c, option.field));
  }
}

void check_shared_train_options(const ResolvedOptions& options) {
  for (const auto& [name, resolved] : options.entries()) {
    const auto* option = config::find_train_option(name);
    if (option && option->check && resolved.is_set) option->check(name, resolved.value);
  }
}

namespace {

void check_fraction(const ResolvedOptions& options, const std::string& key) {
  const double value = options.get_double(key);
  if (value >= 0.0 && value <= 1.0) return;
  throw Error(key + "=" + format_option_value(options.at(key).value) + " is out of range",
              "it is a fraction: from 0 to 1", "pass e.g. " + key + "=" + (key == "conf" ? "0.25" : "0.45"));
}

}  // namespace

void check_nms_options(const ResolvedOptions& options) {
  check_fraction(options, "conf");
  check_fraction(options, "iou");
  if (options.get_int("max_det") < 1) {
    throw Error("max_det=" + std::to_string(options.get_int("max_det")) + " keeps no detection", "it must be at least 1",
                "pass e.g. max_det=300");
  }
}

TrainConfig make_train_config(const ResolvedOptions& options) {
  auto c = unchecked_train_config(options);
  check_train_config(c);
  return c;
}

}  // namespace libreyolo::core::config
