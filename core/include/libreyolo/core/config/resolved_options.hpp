#pragma once
// Option layers and their resolution. Precedence, lowest first:
//   global default < family (policy + recipe) < cfg= file < command line
// Every resolved value remembers which layer set it, so `train` can print where each
// non-default value came from.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "libreyolo/core/config/option_table.hpp"

namespace libreyolo::core::config {

enum class OptionSource { global_default, family, cfg_file, command_line };
const char* to_string(OptionSource source);

struct ResolvedOption {
  OptionValue value;
  OptionSource source = OptionSource::global_default;
  bool is_set = false;  // false for options with no default that nobody set (e.g. model)
};

class ResolvedOptions {
 public:
  bool has(const std::string& name) const;  // set by someone (or a non-empty default)
  bool get_bool(const std::string& name) const;
  long long get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  const std::string& get_text(const std::string& name) const;  // text and choice options
  sdk::Range get_range(const std::string& name) const;
  const ResolvedOption& at(const std::string& name) const;

  // In table order.
  const std::vector<std::pair<std::string, ResolvedOption>>& entries() const { return entries_; }

 private:
  friend class OptionLayers;
  std::vector<std::pair<std::string, ResolvedOption>> entries_;
  std::map<std::string, size_t> index_;
};

class OptionLayers {
 public:
  explicit OptionLayers(OptionTable table) : table_(std::move(table)) {}

  // Values as text (the command line, a cfg file), parsed and validated against the table.
  // `origin` names the layer in error messages.
  void set_text(OptionSource source, const std::string& origin,
                const std::vector<std::pair<std::string, std::string>>& values);
  // Values that are already typed (a family's policy and recipe): checked against the table
  // (check_option_value), never turned into text and parsed back.
  void set_values(OptionSource source, const std::string& origin, const NamedValues& values);

  ResolvedOptions resolve() const;
  const OptionTable& table() const { return table_; }

 private:
  struct Layer {
    std::string origin;
    std::map<std::string, OptionValue> values;
  };
  OptionTable table_;
  std::map<OptionSource, Layer> layers_;
};

}  // namespace libreyolo::core::config
