// Reading and writing a TrainConfig member through its option's binding, so that code walking
// the option list (defaults, make_train_config, the option reports) needs no per-option code.

#include <climits>
#include <stdexcept>
#include <type_traits>

#include "libreyolo/core/config/train_option_list.hpp"

namespace libreyolo::core::config {
namespace {

template <class Pointer>
struct MemberOf;
template <class Member>
struct MemberOf<Member config::TrainConfig::*> {
  using type = Member;
};
template <class Pointer>
using member_of_t = typename MemberOf<Pointer>::type;

template <class Member>
constexpr bool is_integer_member = std::is_same_v<Member, int> || std::is_same_v<Member, std::int64_t>;

}  // namespace

const TrainOption* find_train_option(const std::string& name) {
  for (const auto& option : train_option_list()) {
    if (option.spec.name == name) return &option;
  }
  return nullptr;
}

OptionValue read_field(const config::TrainConfig& config, const TrainField& field) {
  return std::visit(
      [&](auto member) -> OptionValue {
        using Member = member_of_t<decltype(member)>;
        if constexpr (is_integer_member<Member>) {
          return static_cast<long long>(config.*member);
        } else {
          return config.*member;
        }
      },
      field);
}

bool fits_field(const TrainField& field, const OptionValue& value) {
  const auto* integer = std::get_if<long long>(&value);
  if (!integer || !std::holds_alternative<int config::TrainConfig::*>(field)) return true;
  return *integer >= INT_MIN && *integer <= INT_MAX;
}

void write_field(config::TrainConfig& config, const TrainField& field, const OptionValue& value) {
  std::visit(
      [&](auto member) {
        using Member = member_of_t<decltype(member)>;
        using Value = std::conditional_t<is_integer_member<Member>, long long, Member>;
        const auto* typed = std::get_if<Value>(&value);
        // A programming error (an option whose type and member disagree), not a user error.
        if (!typed) throw std::logic_error("an option's value does not have its TrainConfig member's type");
        config.*member = static_cast<Member>(*typed);
      },
      field);
}

}  // namespace libreyolo::core::config
