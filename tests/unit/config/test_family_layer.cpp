// The family layer is typed: a family's policy and recipe reach the resolved options and
// TrainConfig as the values the plugin wrote, checked against the option table, never
// formatted to text and parsed back.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "../error_of.hpp"

using namespace libreyolo;
using namespace libreyolo::core;
using namespace libreyolo::core::config;

namespace {

const double kSum = 0.1 + 0.2;  // 0.30000000000000004: any text of fewer than 17 digits loses it

class RecipeFamily : public sdk::Family {
 public:
  sdk::FamilyInfo info() const override { return {}; }
  sdk::Policy policy() const override { return {}; }
  sdk::Recipe recipe(const std::string&) const override {
    sdk::Recipe recipe;
    recipe.lr0 = 0.1;
    recipe.momentum = kSum;
    recipe.epochs = 7;
    recipe.optimizer = "AdamW";  // choices compare without case, as on the command line
    recipe.nesterov = false;
    return recipe;
  }
  std::shared_ptr<sdk::Detector> create_detector(const sdk::ModelSpec&) const override {
    throw std::logic_error("no detector");
  }
  std::shared_ptr<sdk::Criterion> create_criterion(sdk::Detector&, const sdk::CriterionSpec&) const override {
    throw std::logic_error("no criterion");
  }
};

plugins::LoadedFamily recipe_family() {
  plugins::LoadedFamily family;
  family.family = std::make_shared<RecipeFamily>();
  family.info.name = "recipe";
  family.info.default_imgsz = {{"s", 416}};
  family.policy.amp = false;
  return family;
}

const OptionValue* value_in(const NamedValues& values, const std::string& key) {
  for (const auto& [k, v] : values) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

using libreyolo::test::error_of;

}  // namespace

TEST_CASE("family layer: policy and recipe values are typed, as the plugin wrote them") {
  const auto family = recipe_family();
  const auto values = plugins::family_option_defaults(family, "s", train_options());
  REQUIRE(value_in(values, "lr0") != nullptr);
  CHECK(same_bits(std::get<double>(*value_in(values, "lr0")), 0.1));
  CHECK(same_bits(std::get<double>(*value_in(values, "momentum")), kSum));
  CHECK(std::get<long long>(*value_in(values, "epochs")) == 7);  // the options' integer type
  CHECK(std::get<long long>(*value_in(values, "imgsz")) == 416);
  CHECK(std::get<bool>(*value_in(values, "amp")) == false);
  CHECK(std::get<bool>(*value_in(values, "nesterov")) == false);
  CHECK(value_in(values, "weight_decay") == nullptr);  // not in the recipe: the global default stays
}

TEST_CASE("family layer: a recipe double arrives bit-exact in the resolved options and in TrainConfig") {
  const auto family = recipe_family();
  const auto table = train_options();
  const auto resolved = resolve_options(table, read_user_options({"data=d"}, table), "family recipe's recipe",
                                        plugins::family_option_defaults(family, "s", table));
  CHECK(resolved.at("momentum").source == OptionSource::family);
  CHECK(same_bits(resolved.get_double("momentum"), kSum));
  CHECK(resolved.get_text("optimizer") == "adamw");  // the table's spelling
  const auto config = config::make_train_config(resolved);
  CHECK(same_bits(config.lr0, 0.1));
  CHECK(same_bits(config.momentum, kSum));
  CHECK(config.epochs == 7);
  CHECK(config.imgsz == 416);
  CHECK_FALSE(config.amp);
  CHECK(config.user_set.count("momentum") == 0);  // the family set it, not the user
}

TEST_CASE("family layer: typed values are checked against the table like text is") {
  OptionLayers layers(train_options());
  const std::string origin = "family broken's recipe";
  CHECK(error_of([&] { layers.set_values(OptionSource::family, origin, {{"epochs", std::string("ten")}}); })
            .find("option 'epochs' got 'ten' from family broken's recipe: expected an integer") != std::string::npos);
  CHECK(error_of([&] { layers.set_values(OptionSource::family, origin, {{"optimizer", std::string("rmsprop")}}); })
            .find("expected one of sgd, adam, adamw") != std::string::npos);
  CHECK(error_of([&] { layers.set_values(OptionSource::family, origin, {{"mosaic_scale", sdk::Range{2, 1}}}); })
            .find("low > high") != std::string::npos);
  CHECK(error_of([&] { layers.set_values(OptionSource::family, origin, {{"momentumm", 0.9}}); })
            .find("did you mean 'momentum'") != std::string::npos);
  // A whole number for a number option is that number.
  layers.set_values(OptionSource::family, origin, {{"lr0", 1LL}, {"scale", sdk::Range{0.5, 1.5}}});
  const auto resolved = layers.resolve();
  CHECK(resolved.get_double("lr0") == 1.0);
  CHECK(resolved.get_range("mosaic_scale").low == 0.5);  // aliases work in the typed layer too
}
