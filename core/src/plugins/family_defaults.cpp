#include "libreyolo/core/plugins/family_defaults.hpp"

#include <type_traits>

namespace libreyolo::core::plugins {

config::NamedValues family_option_defaults(const LoadedFamily& family, const std::string& size,
                                           const config::OptionTable& table) {
  config::NamedValues values;
  auto put = [&](const std::string& key, config::OptionValue value) {
    if (table.find(key)) values.emplace_back(key, std::move(value));
  };
  put("amp", family.policy.amp);
  put("sync_bn", family.policy.sync_bn);
  if (auto it = family.info.default_imgsz.find(size); it != family.info.default_imgsz.end()) {
    put("imgsz", static_cast<long long>(it->second));
  }
  family.family->recipe(size).for_each_field([&](const char* key, const sdk::RecipeValue& v) {
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, int>) {
            put(key, static_cast<long long>(x));  // the options' integer type
          } else {
            put(key, x);
          }
        },
        v);
  });
  return values;
}

}  // namespace libreyolo::core::plugins
