#pragma once
// A TrainConfig's options as text with where each came from: what `train` prints before it
// starts, what args.yaml records and what last.pt keeps. One function, so the three agree.

#include <string>
#include <vector>

#include "libreyolo/core/config/option_sources.hpp"
#include "libreyolo/core/config/train_config.hpp"

namespace libreyolo::core::config {

struct ReportedOption {
  std::string name;
  std::string value;  // format_option_value's canonical text
  OptionSource source = OptionSource::global_default;
};

// Every option of train's list that has a value, in table order: all but the text options
// without a default that nobody set (model=, cfg=, plugin_dir= ...).
std::vector<ReportedOption> report_options(const config::TrainConfig& config, const OptionSources& sources);

}  // namespace libreyolo::core::config
