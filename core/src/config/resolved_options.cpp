#include "libreyolo/core/config/resolved_options.hpp"

#include "libreyolo/core/error.hpp"
#include "user_value.hpp"

namespace libreyolo::core::config {

const char* to_string(OptionSource source) {
  switch (source) {
    case OptionSource::global_default: return "default";
    case OptionSource::family: return "family";
    case OptionSource::cfg_file: return "cfg";
    case OptionSource::command_line: return "command line";
  }
  return "?";
}

void OptionLayers::set_text(OptionSource source, const std::string& origin,
                            const std::vector<std::pair<std::string, std::string>>& values) {
  Layer layer{origin, {}};
  for (const auto& [key, text] : values) {
    const auto& spec = table_.require(key, origin);
    layer.values[spec.name] = parse_user_value(spec, text, origin);
  }
  layers_[source] = std::move(layer);
}

void OptionLayers::set_values(OptionSource source, const std::string& origin, const NamedValues& values) {
  Layer layer{origin, {}};
  for (const auto& [key, value] : values) {
    const auto& spec = table_.require(key, origin);
    layer.values[spec.name] = check_option_value(spec, value, origin);
  }
  layers_[source] = std::move(layer);
}

ResolvedOptions OptionLayers::resolve() const {
  ResolvedOptions resolved;
  for (const auto& spec : table_.specs()) {
    ResolvedOption option;
    if (!spec.default_value.empty()) {
      option.value = parse_option_value(spec, spec.default_value, "the built-in defaults");
      option.is_set = true;
    } else {
      option.value = std::string();
    }
    for (const auto& [source, layer] : layers_) {  // std::map iterates in precedence order
      if (auto it = layer.values.find(spec.name); it != layer.values.end()) {
        option.value = it->second;
        option.source = source;
        option.is_set = true;
      }
    }
    resolved.index_[spec.name] = resolved.entries_.size();
    resolved.entries_.emplace_back(spec.name, std::move(option));
  }
  return resolved;
}

const ResolvedOption& ResolvedOptions::at(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) {
    // A programming error (the code asked for an option its table lacks), not a user error.
    throw std::logic_error("option '" + name + "' is not in this command's table");
  }
  return entries_[it->second].second;
}

bool ResolvedOptions::has(const std::string& name) const {
  const auto& option = at(name);
  if (!option.is_set) return false;
  const auto* text = std::get_if<std::string>(&option.value);
  return !text || !text->empty();
}

namespace {
template <class T>
const T& get_as(const ResolvedOptions& options, const std::string& name) {
  const auto* value = std::get_if<T>(&options.at(name).value);
  if (!value) throw std::logic_error("option '" + name + "' read with the wrong type");
  return *value;
}
}  // namespace

bool ResolvedOptions::get_bool(const std::string& name) const { return get_as<bool>(*this, name); }
long long ResolvedOptions::get_int(const std::string& name) const {
  return get_as<long long>(*this, name);
}
double ResolvedOptions::get_double(const std::string& name) const {
  return get_as<double>(*this, name);
}
const std::string& ResolvedOptions::get_text(const std::string& name) const {
  return get_as<std::string>(*this, name);
}
sdk::Range ResolvedOptions::get_range(const std::string& name) const {
  return get_as<sdk::Range>(*this, name);
}

}  // namespace libreyolo::core::config
