#include "option_checks.hpp"

#include "libreyolo/core/config/fused_kernel_selection.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config::checks {

void out_of_range(const std::string& key, const std::string& value, const std::string& expected) {
  throw Error("option " + key + "=" + value + " is out of range", "expected " + expected,
              "pass a value in that range");
}

ValueCheck integer_from(long long low, long long high) {
  return [low, high](const std::string& key, const OptionValue& value) {
    const auto v = std::get<long long>(value);
    if (v < low || v > high) {
      out_of_range(key, std::to_string(v), "an integer from " + std::to_string(low) + " to " + std::to_string(high));
    }
  };
}

ValueCheck number_from(double low, double high) {
  return [low, high](const std::string& key, const OptionValue& value) {
    const auto v = std::get<double>(value);
    if (v < low || v > high) {
      out_of_range(key, format_option_value(v),
                   "a number from " + format_option_value(low) + " to " + format_option_value(high));
    }
  };
}

ValueCheck probability() { return number_from(0, 1); }

ValueCheck fused_kernel_names() {
  return [](const std::string&, const OptionValue& value) { parse_fused_kernels(std::get<std::string>(value)); };
}

ValueCheck multiple_of(long long step, const std::string& expected) {
  return [step, expected](const std::string& key, const OptionValue& value) {
    const auto v = std::get<long long>(value);
    if (v % step != 0) out_of_range(key, std::to_string(v), expected);
  };
}

ValueCheck not_zero(const std::string& expected) {
  return [expected](const std::string& key, const OptionValue& value) {
    if (std::get<long long>(value) == 0) out_of_range(key, "0", expected);
  };
}

ValueCheck at_least(long long low, const std::string& expected) {
  return [low, expected](const std::string& key, const OptionValue& value) {
    const auto v = std::get<long long>(value);
    if (v < low) out_of_range(key, std::to_string(v), expected);
  };
}

ValueCheck positive_scales() {
  return [](const std::string& key, const OptionValue& value) {
    if (std::get<sdk::Range>(value).low <= 0) out_of_range(key, format_option_value(value), "positive scales");
  };
}

ValueCheck required(const std::string& what, const std::string& why, const std::string& what_to_do) {
  return [what, why, what_to_do](const std::string&, const OptionValue& value) {
    if (std::get<std::string>(value).empty()) throw Error(what, why, what_to_do);
  };
}

ValueCheck both(ValueCheck first, ValueCheck second) {
  return [first = std::move(first), second = std::move(second)](const std::string& key, const OptionValue& value) {
    first(key, value);
    second(key, value);
  };
}

}  // namespace libreyolo::core::config::checks
