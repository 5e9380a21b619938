#pragma once
// Which layer set each option: what travels next to a typed TrainConfig so that `train`'s
// summary, args.yaml and last.pt can say where a value came from. The values themselves live
// in the TrainConfig only; this holds no second copy of them.

#include <map>
#include <string>

#include "libreyolo/core/config/resolved_options.hpp"

namespace libreyolo::core::config {

class OptionSources {
 public:
  OptionSources() = default;
  explicit OptionSources(const ResolvedOptions& resolved);

  // global_default for an option no layer set.
  OptionSource of(const std::string& name) const;
  // A command's own decision (profile run's profile=true) is recorded as the layer it stands
  // for; see apply_profile_run_rules.
  void set(const std::string& name, OptionSource source);

 private:
  std::map<std::string, OptionSource> by_name_;  // only options not at their global default
};

}  // namespace libreyolo::core::config
