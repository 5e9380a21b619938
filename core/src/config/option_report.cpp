#include "libreyolo/core/config/option_report.hpp"

#include "libreyolo/core/config/train_option_list.hpp"

namespace libreyolo::core::config {

std::vector<ReportedOption> report_options(const config::TrainConfig& config, const OptionSources& sources) {
  std::vector<ReportedOption> reported;
  for (const auto& option : train_option_list()) {
    const auto value = read_field(config, option.field);
    const auto source = sources.of(option.spec.name);
    const auto* text = std::get_if<std::string>(&value);
    if (source == OptionSource::global_default && text && text->empty()) continue;  // unset
    reported.push_back({option.spec.name, format_option_value(value), source});
  }
  return reported;
}

}  // namespace libreyolo::core::config
