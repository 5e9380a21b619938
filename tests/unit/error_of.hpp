#pragma once
// The message of the core::Error an action throws, or "(no error)": what the option and freeze
// tests compare their refusals against.

#include <functional>
#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::test {

inline std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const core::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace libreyolo::test
