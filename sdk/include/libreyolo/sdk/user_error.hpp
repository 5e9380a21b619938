#pragma once
// A failure of the user's input that a family detects (an image too small for the model, a
// size or option the family cannot honour). The host prints it as it prints its own errors —
// what happened, why, what to do — and exits non-zero; any other exception out of a plugin is
// reported as a bug. Defined in the SDK library (its key function lives there), so that every
// plugin throws the one type the host catches.

#include <stdexcept>
#include <string>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

class LIBREYOLO_SDK_API UserError : public std::runtime_error {
 public:
  UserError(std::string what_happened, std::string why, std::string what_to_do);
  ~UserError() override;

  const std::string& what_happened() const noexcept { return what_happened_; }
  const std::string& why() const noexcept { return why_; }
  const std::string& what_to_do() const noexcept { return what_to_do_; }

 private:
  std::string what_happened_, why_, what_to_do_;
};

}  // namespace libreyolo::sdk
