#pragma once
// The checks option values must pass beyond their type (ranges, multiples, required text),
// for the option list in train_options.cpp. Every failure reads "option KEY=VALUE is out of
// range: expected ...", the message make_train_config has always given. Private to
// core/src/config/.

#include <string>

#include "libreyolo/core/config/train_option_list.hpp"

namespace libreyolo::core::config::checks {

[[noreturn]] void out_of_range(const std::string& key, const std::string& value, const std::string& expected);

ValueCheck integer_from(long long low, long long high);  // "an integer from LOW to HIGH"
ValueCheck number_from(double low, double high);         // "a number from LOW to HIGH"
ValueCheck probability();                                // number_from(0, 1)
ValueCheck multiple_of(long long step, const std::string& expected);
ValueCheck not_zero(const std::string& expected);
ValueCheck at_least(long long low, const std::string& expected);
ValueCheck positive_scales();  // a range whose low end is above 0
// Empty text fails with the given error (data= for train).
ValueCheck required(const std::string& what, const std::string& why, const std::string& what_to_do);
// task=detect (any case) only: the other LibreYOLO tasks are refused with why.
ValueCheck detect_task_only();
// fused_kernels=: off, auto, measured, kernel names joined by + (fused_kernel_selection.hpp).
ValueCheck fused_kernel_names();
// freeze= as LibreYOLO writes it (N, a list of indices and names, a name): syntax only.
ValueCheck freeze_syntax();
// `first`, then `second`.
ValueCheck both(ValueCheck first, ValueCheck second);

}  // namespace libreyolo::core::config::checks
