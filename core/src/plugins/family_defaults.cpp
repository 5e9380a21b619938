#include "libreyolo/core/plugins/family_defaults.hpp"

#include <type_traits>

namespace libreyolo::core::plugins {
namespace {

// The augmentation options a pipeline's transforms answer to, with the values the family
// declared (the first Mosaic, Mixup, Hsv and Flip of the first pipeline: what training starts
// with), so `families NAME` and the option summary show them.
template <class Put>
void put_augmentation_defaults(const sdk::Recipe& recipe, Put&& put) {
  if (recipe.augmentation.empty()) return;
  bool mosaic = false, mixup = false, hsv = false, flip = false;
  for (const auto& transform : recipe.augmentation.front().transforms) {
    if (const auto* m = std::get_if<sdk::augment::Mosaic>(&transform); m && !mosaic) {
      mosaic = true;
      put("mosaic_prob", m->prob);
      put("degrees", m->degrees);
      put("translate", m->translate);
      put("mosaic_scale", m->scale);
      put("shear", m->shear);
    } else if (const auto* x = std::get_if<sdk::augment::Mixup>(&transform); x && !mixup) {
      mixup = true;
      put("mixup_prob", x->prob);
      put("mixup_scale", x->scale);
    } else if (const auto* h = std::get_if<sdk::augment::Hsv>(&transform); h && !hsv) {
      hsv = true;
      put("hsv_prob", h->prob);
    } else if (const auto* f = std::get_if<sdk::augment::Flip>(&transform); f && !flip) {
      flip = true;
      put("flip_prob", f->prob);
    }
  }
}

}  // namespace

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
  const auto recipe = family.family->recipe(size);
  recipe.for_each_field([&](const char* key, const sdk::RecipeValue& v) {
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
  put_augmentation_defaults(recipe, put);
  // A scheduled change placed by an option (D-FINE's aug_stop_epoch_ratio): the declared value
  // is that option's default. (A from_end point's count option, no_aug_epochs, is a recipe field.)
  for (const auto& change : recipe.schedule) {
    if (change.at.kind == sdk::EpochPoint::Kind::fraction && !change.at.count_option.empty()) {
      put(change.at.count_option, change.at.value);
    }
  }
  return values;
}

}  // namespace libreyolo::core::plugins
