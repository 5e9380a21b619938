#include "libreyolo/core/predict/class_filter.hpp"

#include <algorithm>
#include <cctype>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::predict {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string valid_range(const std::vector<std::string>& names) {
  return "the model knows " + std::to_string(names.size()) + " classes, ids 0 to " +
         std::to_string(static_cast<long long>(names.size()) - 1);
}

int class_id_of(const std::string& entry, const std::string& text, const std::vector<std::string>& names) {
  const std::string what_to_do = "pass class ids or names of this model, e.g. classes=0,2 or classes=" +
                           (names.empty() ? std::string("0") : names.front());
  if (all_digits(entry) || (entry.size() > 1 && entry[0] == '-' && all_digits(entry.substr(1)))) {
    const long long id = entry.size() > 12 ? -1 : std::stoll(entry);
    if (id < 0 || id >= static_cast<long long>(names.size())) {
      throw Error("classes=" + text + " names class " + entry + ", which this model does not have", valid_range(names),
                  what_to_do);
    }
    return static_cast<int>(id);
  }
  const auto it = std::find(names.begin(), names.end(), entry);
  if (it == names.end()) {
    throw Error("classes=" + text + " names '" + entry + "'", "it is neither a class id nor one of the model's class names",
                what_to_do);
  }
  return static_cast<int>(it - names.begin());
}

}  // namespace

std::vector<int> parse_class_filter(const std::string& text, const std::vector<std::string>& names) {
  std::string list = trim(text);
  if (list.size() >= 2 && ((list.front() == '[' && list.back() == ']') || (list.front() == '(' && list.back() == ')'))) {
    list = list.substr(1, list.size() - 2);
  }
  std::vector<int> ids;
  if (trim(list).empty()) return ids;
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    const std::string entry = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (entry.empty()) {
      throw Error("classes=" + text + " has an empty entry", "two commas in a row, or one at an end",
                  "write the classes as classes=0,2 or classes=[0, 2]");
    }
    ids.push_back(class_id_of(entry, text, names));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void keep_classes(std::vector<eval::Detection>& detections, const std::vector<int>& keep) {
  if (keep.empty()) return;
  detections.erase(std::remove_if(detections.begin(), detections.end(),
                                  [&](const eval::Detection& d) {
                                    return !std::binary_search(keep.begin(), keep.end(), d.class_id);
                                  }),
                   detections.end());
}

}  // namespace libreyolo::core::predict
