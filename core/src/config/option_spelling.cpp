#include "option_spelling.hpp"

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::config {

void refuse_second_spelling(const std::string& name, const std::string& spelling,
                            std::map<std::string, std::string>& spelling_of, const std::string& origin) {
  const auto [first, inserted] = spelling_of.emplace(name, spelling);
  if (inserted) return;
  if (first->second == spelling) {
    throw Error("option '" + name + "' is given twice in " + origin, "each option may appear once",
                "keep the value you mean and drop the other");
  }
  // mosaic=0.5 mosaic_prob=0.3: two names of one option, which would silently pick one value.
  throw Error("option '" + name + "' is given twice in " + origin + ", as '" + first->second + "' and '" + spelling + "'",
              "'" + (first->second == name ? spelling : first->second) + "' is another name of '" + name +
                  "', and each option may appear once",
              "keep one of '" + first->second + "' and '" + spelling + "'");
}

}  // namespace libreyolo::core::config
