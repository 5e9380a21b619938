#pragma once
// The pattern language of parameter names (param-group rules, frozen patterns, freeze groups).
// Torch-free.

#include <string_view>

namespace libreyolo::core::optim {

// Whether `name` matches the glob `pattern` as a whole: `*` any run of characters (dots and
// the empty run included), `?` exactly one character, any other character itself (no
// escapes, no [classes]). No regex and no exponential backtracking: at most
// O(|pattern| x |name|) steps, linear in the name for a given pattern.
bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace libreyolo::core::optim
