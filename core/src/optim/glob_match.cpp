#include "libreyolo/core/optim/glob_match.hpp"

#include <cstddef>

namespace libreyolo::core::optim {

bool glob_match(std::string_view pattern, std::string_view name) {
  // Greedy, returning only to the last `*`: a later `*` can absorb anything an earlier one
  // would have, so letting the last one take one more character is the only retry needed.
  constexpr std::size_t kNone = std::string_view::npos;
  std::size_t p = 0, n = 0;
  std::size_t star = kNone;  // position of the last `*` in pattern
  std::size_t star_end = 0;  // where in name the text that `*` absorbs ends
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_end = n;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (star != kNone) {
      p = star + 1;
      n = ++star_end;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace libreyolo::core::optim
