#include "libreyolo/core/config/option_sources.hpp"

namespace libreyolo::core::config {

OptionSources::OptionSources(const ResolvedOptions& resolved) {
  for (const auto& [name, option] : resolved.entries()) {
    if (option.source != OptionSource::global_default) by_name_[name] = option.source;
  }
}

OptionSource OptionSources::of(const std::string& name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? OptionSource::global_default : it->second;
}

void OptionSources::set(const std::string& name, OptionSource source) {
  if (source == OptionSource::global_default) {
    by_name_.erase(name);
  } else {
    by_name_[name] = source;
  }
}

}  // namespace libreyolo::core::config
