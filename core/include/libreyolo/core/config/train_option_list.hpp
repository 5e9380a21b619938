#pragma once
// The one list of `train`'s options: each option's spec (name, type, default, help, choices),
// the TrainConfig member it fills and the check its value must pass. The command tables
// (train_options(), bench_options(), val_options(), profile_run_options()), TrainConfig's
// defaults, make_train_config's typed assignment and range checks, and the option reports
// (summary, args.yaml, last.pt) are all derived from it. The list is in train_options.cpp.

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "libreyolo/core/config/option_spec.hpp"
#include "libreyolo/core/config/train_config.hpp"

namespace libreyolo::core::config {

// The TrainConfig member an option fills. Integer options fill int or std::int64_t members,
// number options double, text and choice options std::string, range options sdk::Range.
using TrainField = std::variant<bool config::TrainConfig::*, int config::TrainConfig::*,
                                std::int64_t config::TrainConfig::*, double config::TrainConfig::*,
                                std::string config::TrainConfig::*, sdk::Range config::TrainConfig::*>;

// Throws core::Error when a value of the option's type is not valid for it ("option imgsz=100
// is out of range: expected a multiple of 32 (the network stride)"). `name` is the option's.
using ValueCheck = std::function<void(const std::string& name, const OptionValue& value)>;

struct TrainOption {
  OptionSpec spec;
  TrainField field;
  ValueCheck check{};            // empty: every value of the type is valid
  bool shared_with_val = false;  // also one of `val`'s options
};

// In table order (the order of `help train` and docs/cli.md).
const std::vector<TrainOption>& train_option_list();

// Null for a name that is not one of train's options (no aliases here: canonical names only).
const TrainOption* find_train_option(const std::string& name);

// The member's value as the option's typed value (int and std::int64_t read as long long).
OptionValue read_field(const config::TrainConfig& config, const TrainField& field);
// Whether `value` fits the member: an integer outside int's range does not fit an int member.
bool fits_field(const TrainField& field, const OptionValue& value);
// Assigns `value` (of the option's type, fitting the member) to the member.
void write_field(config::TrainConfig& config, const TrainField& field, const OptionValue& value);

}  // namespace libreyolo::core::config
