#include "libreyolo/sdk/user_error.hpp"

namespace libreyolo::sdk {
namespace {

std::string compose(const std::string& what, const std::string& why, const std::string& todo) {
  std::string message = what;
  if (!why.empty()) message += ": " + why;
  if (!todo.empty()) message += ". " + todo;
  return message;
}

}  // namespace

UserError::UserError(std::string what_happened, std::string why, std::string what_to_do)
    : std::runtime_error(compose(what_happened, why, what_to_do)),
      what_happened_(std::move(what_happened)),
      why_(std::move(why)),
      what_to_do_(std::move(what_to_do)) {}

UserError::~UserError() = default;

}  // namespace libreyolo::sdk
