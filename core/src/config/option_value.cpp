#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include "libreyolo/core/config/option_spec.hpp"
#include "user_value.hpp"
#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

std::string join(const std::vector<std::string>& words, const char* separator) {
  std::string joined;
  for (size_t i = 0; i < words.size(); ++i) joined += (i ? separator : "") + words[i];
  return joined;
}

bool parse_double(const std::string& text, double& out) {
  const std::string t = trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size() && std::isfinite(out);
}

std::string example_for(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::boolean: return spec.name + "=true";
    case OptionType::integer: return spec.name + "=" + (spec.default_value.empty() ? "1" : spec.default_value);
    case OptionType::number: return spec.name + "=" + (spec.default_value.empty() ? "0.5" : spec.default_value);
    case OptionType::choice: return spec.name + "=" + spec.choices.front();
    case OptionType::range: return spec.name + "=0.5,1.5";
    case OptionType::text: return spec.name + "=...";
  }
  return spec.name + "=...";
}

// The listed choice `text` names, itself or through a synonym, without regard to case.
std::optional<std::string> find_choice(const OptionSpec& spec, const std::string& text) {
  const std::string t = lower(text);
  for (const auto& choice : spec.choices) {
    if (lower(choice) == t) return choice;
  }
  for (const auto& [synonym, choice] : spec.choice_synonyms) {
    if (lower(synonym) == t) return choice;
  }
  return std::nullopt;
}

[[noreturn]] void bad_value(const OptionSpec& spec, const std::string& text,
                            const std::string& origin, const std::string& extra = {}) {
  throw Error("option '" + spec.name + "' got '" + text + "' from " + origin,
              "expected " + describe_type(spec) + extra,
              "write it like " + example_for(spec));
}

// A typed value is shown as its canonical text in the message.
[[noreturn]] void refuse_value(const OptionSpec& spec, const OptionValue& value, const std::string& origin,
                               const std::string& extra = {}) {
  bad_value(spec, format_option_value(value), origin, extra);
}

}  // namespace

std::string describe_type(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::boolean: return "true or false";
    case OptionType::integer: return "an integer";
    case OptionType::number: return "a number";
    case OptionType::text: return "text";
    case OptionType::choice: {
      std::string text = "one of " + join(spec.choices, ", ");
      std::vector<std::string> synonyms;
      for (const auto& [synonym, choice] : spec.choice_synonyms) synonyms.push_back(synonym + " = " + choice);
      return synonyms.empty() ? text : text + " (" + join(synonyms, ", ") + ")";
    }
    case OptionType::range: return "a range low,high (two numbers, low <= high)";
  }
  return "a value";
}

OptionValue parse_user_value(const OptionSpec& spec, const std::string& text, const std::string& origin) {
  if (!trim(text).empty()) return parse_option_value(spec, text, origin);
  const bool in_cfg = origin.rfind("cfg file", 0) == 0;
  std::string example = example_for(spec);
  if (in_cfg) example.replace(spec.name.size(), 1, ": ");
  const std::string written = in_cfg ? "'" + spec.name + ":'" : "'" + spec.name + "='";
  const std::string default_text = spec.default_value.empty() ? "" : " (" + spec.default_value + ")";
  throw Error("option '" + spec.name + "' has an empty value in " + origin,
              written + " is followed by nothing, and an empty value is not the default" +
                  (in_cfg ? "" : " (an unset shell variable, as in " + spec.name + "=$VAR, looks like this)"),
              "write a value (" + describe_type(spec) + "), e.g. " + example + ", or " +
                  (in_cfg ? "delete the line" : "leave " + spec.name + " out") + " for the default" + default_text);
}

OptionValue parse_option_value(const OptionSpec& spec, const std::string& raw,
                               const std::string& origin) {
  const std::string text = trim(raw);
  switch (spec.type) {
    case OptionType::boolean: {
      const std::string t = lower(text);
      if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
      if (t == "false" || t == "no" || t == "off" || t == "0") return false;
      bad_value(spec, raw, origin);
    }
    case OptionType::integer: {
      long long value = 0;
      const auto* end = text.data() + text.size();
      auto [ptr, ec] = std::from_chars(text.data(), end, value);
      if (text.empty() || ec != std::errc() || ptr != end) bad_value(spec, raw, origin);
      return value;
    }
    case OptionType::number: {
      double value = 0;
      if (!parse_double(text, value)) bad_value(spec, raw, origin);
      return value;
    }
    case OptionType::text: return text;
    case OptionType::choice: {
      if (auto choice = find_choice(spec, text)) return *choice;
      bad_value(spec, raw, origin);
    }
    case OptionType::range: {
      // Accept "a,b", "[a, b]" and "(a, b)": what users paste from Python or YAML.
      std::string t = text;
      if (t.size() >= 2 && (t.front() == '[' || t.front() == '(')) t = t.substr(1, t.size() - 2);
      const auto comma = t.find(',');
      sdk::Range range;
      if (comma == std::string::npos || !parse_double(t.substr(0, comma), range.low) ||
          !parse_double(t.substr(comma + 1), range.high)) {
        bad_value(spec, raw, origin);
      }
      if (range.low > range.high) bad_value(spec, raw, origin, ", but low > high");
      return range;
    }
  }
  bad_value(spec, raw, origin);
}

OptionValue check_option_value(const OptionSpec& spec, const OptionValue& value,
                               const std::string& origin) {
  switch (spec.type) {
    case OptionType::boolean:
      if (!std::holds_alternative<bool>(value)) refuse_value(spec, value, origin);
      return value;
    case OptionType::integer:
      if (!std::holds_alternative<long long>(value)) refuse_value(spec, value, origin);
      return value;
    case OptionType::number: {
      // A whole-number recipe value for a number option is still that number.
      if (const auto* n = std::get_if<long long>(&value)) return static_cast<double>(*n);
      const auto* x = std::get_if<double>(&value);
      if (!x || !std::isfinite(*x)) refuse_value(spec, value, origin);
      return value;
    }
    case OptionType::text:
      if (!std::holds_alternative<std::string>(value)) refuse_value(spec, value, origin);
      return value;
    case OptionType::choice: {
      if (const auto* text = std::get_if<std::string>(&value)) {
        if (auto choice = find_choice(spec, *text)) return *choice;
      }
      refuse_value(spec, value, origin);
    }
    case OptionType::range: {
      const auto* range = std::get_if<sdk::Range>(&value);
      if (!range || !std::isfinite(range->low) || !std::isfinite(range->high)) refuse_value(spec, value, origin);
      if (range->low > range->high) refuse_value(spec, value, origin, ", but low > high");
      return value;
    }
  }
  refuse_value(spec, value, origin);
}

std::string format_option_value(const OptionValue& value) {
  struct Formatter {
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(long long v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      char buffer[64];
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);  // shortest round-trip
      return ec == std::errc() ? std::string(buffer, end) : std::to_string(v);
    }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(const sdk::Range& v) const {
      return (*this)(v.low) + "," + (*this)(v.high);
    }
  };
  return std::visit(Formatter{}, value);
}

}  // namespace libreyolo::core::config
