#pragma once
// The one exception type of the core. Every failure a user can cause (bad option, missing
// file, corrupt dataset, bad plugin) is reported as: what happened, why, and what to do.
// The CLI prints these three parts and exits non-zero; nothing else catches them silently.

#include <stdexcept>
#include <string>

namespace libreyolo::core {

class Error : public std::runtime_error {
 public:
  Error(std::string what_happened, std::string why, std::string what_to_do)
      : std::runtime_error(compose(what_happened, why, what_to_do)),
        what_happened_(std::move(what_happened)),
        why_(std::move(why)),
        what_to_do_(std::move(what_to_do)) {}

  const std::string& what_happened() const noexcept { return what_happened_; }
  const std::string& why() const noexcept { return why_; }
  const std::string& what_to_do() const noexcept { return what_to_do_; }

 private:
  static std::string compose(const std::string& what, const std::string& why,
                             const std::string& todo) {
    std::string message = what;
    if (!why.empty()) message += ": " + why;
    if (!todo.empty()) message += ". " + todo;
    return message;
  }

  std::string what_happened_;
  std::string why_;
  std::string what_to_do_;
};

}  // namespace libreyolo::core
