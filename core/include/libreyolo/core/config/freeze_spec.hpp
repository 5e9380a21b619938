#pragma once
// The text of the freeze= option read as LibreYOLO's training/freezing.py reads it
// (parse_freeze_spec + normalize_freeze_selectors), into selectors the trainer resolves
// against a family's freeze groups (optim/freeze_selection.hpp):
//
//   unset, none, null, false, 0      nothing frozen
//   N                                the first N freeze groups: indices 0 .. N-1
//   [0, 2] / (0, 2) / 0,2            those group indices
//   backbone / backbone.stem.*       a name: group names, module paths, parameter names (globs * ?)
//   [0, 'neck'] / 0,neck             a mix of both
//   true                             refused, as in LibreYOLO: it does not say what to freeze
//
// Syntax only: whether the indices exist and the names match is known once the model is
// built. Torch-free.

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace libreyolo::core::config {

// A group index (0-based) or a name selector.
using FreezeSelector = std::variant<int, std::string>;

struct FreezeSpec {
  std::vector<FreezeSelector> selectors;  // in the order written; empty: nothing frozen
  std::optional<int> count;               // freeze=N: N (its selectors are 0 .. N-1)
  std::string text;                       // the option's value as given, for messages
  bool empty() const { return selectors.empty(); }
};

// Throws core::Error (what, why, what to do) for a value LibreYOLO refuses too (a negative
// count, true, a boolean in a list, a fraction) and for glob character classes ([abc]), which
// the host's pattern language does not have.
FreezeSpec parse_freeze_spec(const std::string& text);

// "2" / "'neck'": a selector as the messages quote it.
std::string describe_selector(const FreezeSelector& selector);

}  // namespace libreyolo::core::config
