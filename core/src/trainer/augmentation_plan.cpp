#include "libreyolo/core/trainer/augmentation_plan.hpp"

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::trainer {

std::size_t AugmentationPlan::index_of(const std::string& name) const {
  std::string known;
  for (std::size_t i = 0; i < pipelines.size(); ++i) {
    if (pipelines[i].name == name) return i;
    known += (known.empty() ? "" : ", ") + pipelines[i].name;
  }
  throw Error("the recipe's schedule switches to augmentation pipeline '" + name + "'",
              "the recipe declares no pipeline of that name (it has: " + known + ")",
              "fix the family's recipe: name a declared pipeline");
}

AugmentationPlan plan_augmentation(const sdk::Recipe& recipe, int imgsz, const data::AugmentOverrides& overrides) {
  AugmentationPlan plan;
  for (const auto& declared : recipe.augmentation) plan.pipelines.push_back(data::prepare_pipeline(declared, imgsz, overrides));
  if (plan.pipelines.empty()) {
    plan.pipelines.push_back(data::prepare_pipeline({"letterbox", {sdk::augment::Letterbox{}}}, imgsz, overrides));
  }
  return plan;
}

data::AugmentOverrides augment_overrides(const config::TrainConfig& c) {
  data::AugmentOverrides o;
  auto take = [&](const char* name, auto value, auto& field) {
    if (c.user_set.count(name)) field = value;
  };
  take("mosaic_prob", c.mosaic_prob, o.mosaic_prob);
  take("mixup_prob", c.mixup_prob, o.mixup_prob);
  take("hsv_prob", c.hsv_prob, o.hsv_prob);
  take("flip_prob", c.flip_prob, o.flip_prob);
  take("degrees", c.degrees, o.degrees);
  take("translate", c.translate, o.translate);
  take("shear", c.shear, o.shear);
  take("mosaic_scale", c.mosaic_scale, o.mosaic_scale);
  take("mixup_scale", c.mixup_scale, o.mixup_scale);
  return o;
}

}  // namespace libreyolo::core::trainer
