#include "libreyolo/core/config/freeze_spec.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {
namespace {

constexpr const char* kForms =
    "write freeze=N for the first N freeze groups (`libreyolo-host families NAME` lists them), freeze=[0, 2] for "
    "groups by index, or a module name such as freeze=backbone";

// More groups than any model has; a larger count would only allocate its index list.
constexpr long long kMostGroups = 100000;

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

[[noreturn]] void refuse(const std::string& text, const std::string& why, const std::string& what_to_do = kForms) {
  throw Error("option freeze=" + text + " is not valid", why, what_to_do);
}

// An optional sign, then digits only.
std::optional<long long> integer_of(const std::string& text) {
  const std::size_t digits = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (text.size() == digits || text.find_first_not_of("0123456789", digits) != std::string::npos) return std::nullopt;
  return std::strtoll(text.c_str(), nullptr, 10);
}

// "1.5", "1e3": numbers that are not a whole count of groups.
bool is_fraction(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

bool is_quoted(const std::string& text) {
  return text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front();
}

std::string unquoted(const std::string& text) { return is_quoted(text) ? trim(text.substr(1, text.size() - 2)) : text; }

std::string checked_name(const std::string& name, const std::string& text) {
  if (name.find_first_of("[]") != std::string::npos) {
    refuse(text, "'" + name + "' uses a glob character class ([...]), which the host's patterns do not have",
           "use * (any run of characters) and ? (one character), e.g. freeze=backbone.*");
  }
  return name;
}

// A count of groups, or a group index: whole and not negative.
int whole_count(long long value, const std::string& text, const char* what) {
  if (value < 0) refuse(text, std::string(what) + " cannot be negative (LibreYOLO refuses it too)");
  if (value > kMostGroups) refuse(text, "no model has " + std::to_string(value) + " freeze groups");
  return static_cast<int>(value);
}

// One item of a list: an index (a whole number, quoted or not) or a name.
FreezeSelector list_item(const std::string& raw, const std::string& text) {
  const std::string item = unquoted(raw);
  if (const auto index = integer_of(item)) return whole_count(*index, text, "a freeze group index");
  if (!is_quoted(raw)) {
    const auto word = lower(item);
    if (word == "true" || word == "false" || word == "none" || word == "null") {
      refuse(text, "a freeze list holds group indices and module names, not " + item);
    }
    if (is_fraction(item)) refuse(text, item + " is not a group index (indices are whole numbers from 0)");
  }
  return checked_name(item, text);
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    parts.push_back(trim(std::string_view(text).substr(start, comma == std::string::npos ? comma : comma - start)));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

bool bracketed(const std::string& text) {
  return text.size() >= 2 && ((text.front() == '[' && text.back() == ']') || (text.front() == '(' && text.back() == ')'));
}

FreezeSpec count_spec(long long n, const std::string& text) {
  FreezeSpec spec;
  spec.text = text;
  const int count = whole_count(n, text, "a count of freeze groups");
  if (count == 0) return spec;  // freeze=0: nothing
  spec.count = count;
  for (int i = 0; i < count; ++i) spec.selectors.emplace_back(i);
  return spec;
}

}  // namespace

FreezeSpec parse_freeze_spec(const std::string& text) {
  const std::string value = trim(text);
  const std::string word = lower(value);
  if (word.empty() || word == "none" || word == "null" || word == "false") return FreezeSpec{{}, std::nullopt, text};
  if (word == "true") refuse(text, "true does not say what to freeze (LibreYOLO refuses it as ambiguous)");
  // A single value, quoted or not: LibreYOLO reads '3' as freeze=3 as well.
  if (const auto n = integer_of(unquoted(value))) return count_spec(*n, text);
  if (is_fraction(value)) refuse(text, "freeze counts whole groups");

  FreezeSpec spec;
  spec.text = text;
  const bool is_list = bracketed(value) || value.find(',') != std::string::npos;
  if (!is_list) {
    const std::string name = unquoted(value);
    if (!name.empty()) spec.selectors.emplace_back(checked_name(name, text));  // '' freezes nothing
    return spec;
  }
  const std::string inner = bracketed(value) ? value.substr(1, value.size() - 2) : value;
  for (const auto& item : split_commas(inner)) {
    if (!item.empty()) spec.selectors.push_back(list_item(item, text));  // [0, 1,] as Python allows
  }
  return spec;
}

std::string describe_selector(const FreezeSelector& selector) {
  if (const auto* index = std::get_if<int>(&selector)) return std::to_string(*index);
  return "'" + std::get<std::string>(selector) + "'";
}

}  // namespace libreyolo::core::config
