#include "libreyolo/core/trainer/recipe_description.hpp"

#include <torch/torch.h>

#include "libreyolo/core/data/augment/pipeline_text.hpp"
#include "libreyolo/core/optim/freeze_selection.hpp"
#include "libreyolo/core/optim/param_group_rules.hpp"
#include "libreyolo/core/trainer/multi_scale_sizes.hpp"
#include "libreyolo/sdk/detector.hpp"

namespace libreyolo::core::trainer {
namespace {

std::string describe_change(const sdk::EpochChange& change) {
  std::string text = "at " + describe_epoch_point(change.at) + ": " + (change.what.empty() ? "change" : change.what);
  if (change.augmentation) text += "; augmentation -> " + *change.augmentation;
  if (change.multi_scale) text += std::string("; multi-scale ") + (*change.multi_scale ? "on" : "off");
  if (change.ema_decay) text += "; EMA decay " + data::format_number(*change.ema_decay) + " (constant)";
  if (!change.detector_event.empty()) text += "; detector: " + change.detector_event;
  if (change.changes_captured_region) text += "; CUDA graphs recaptured";
  return text;
}

// What freeze=N counts on this model: the recipe's groups or LibreYOLO's default.
std::string describe_freeze_groups(const sdk::Detector& model, const sdk::Recipe& recipe) {
  std::vector<std::string> names;
  for (const auto& item : model.named_parameters()) names.push_back(item.key());
  return optim::describe_freeze_groups(optim::freeze_groups_of(recipe.freeze_groups, names));
}

// What the recipe's groups come to on a freshly built model of this size.
struct ModelGroups {
  std::string freeze_groups;                  // what freeze=N counts
  std::vector<std::string> optimizer_groups;  // one line per optimizer group
};

ModelGroups describe_groups(const plugins::LoadedFamily& family, const std::string& size, const sdk::Recipe& recipe) {
  ModelGroups described;
  torch::NoGradGuard no_grad;
  const auto model = family.family->create_detector({size, 80, 640});
  described.freeze_groups = describe_freeze_groups(*model, recipe);
  optim::freeze_parameters(*model, recipe.frozen);
  // The run's weight_decay is an option: shown as "wd" where a group takes it.
  const auto split = optim::split_by_rules(*model, recipe.param_groups, -1.0);
  for (const auto& row : optim::describe_param_groups(split.groups)) {
    described.optimizer_groups.push_back(
        row.name + ": " + std::to_string(row.tensors) + " tensors, " + std::to_string(row.parameters) +
        " values, lr x" + data::format_number(row.lr_scale) + ", weight decay " +
        (row.weight_decay < 0 ? std::string("weight_decay") : data::format_number(row.weight_decay)));
  }
  return described;
}

}  // namespace

std::string describe_epoch_point(const sdk::EpochPoint& point) {
  using Kind = sdk::EpochPoint::Kind;
  switch (point.kind) {
    case Kind::absolute: return "epoch " + data::format_number(point.value);
    case Kind::from_end:
      return "epochs - " + (point.count_option.empty() ? data::format_number(point.value) : point.count_option);
    case Kind::fraction:
      return (point.count_option.empty() ? data::format_number(point.value)
                                         : point.count_option + " (" + data::format_number(point.value) + ")") +
             " x epochs";
  }
  return "?";
}

std::vector<std::string> describe_recipe(const plugins::LoadedFamily& family, const std::string& size) {
  const auto recipe = family.family->recipe(size);
  std::vector<std::string> lines;
  for (const auto& pipeline : recipe.augmentation) lines.push_back("augmentation " + data::describe_pipeline(pipeline));
  if (recipe.augmentation.empty()) lines.push_back("augmentation letterbox: Letterbox (none declared)");
  for (const auto& change : recipe.schedule) lines.push_back("schedule " + describe_change(change));
  lines.push_back("multi-scale sizes " + describe_multi_scale(recipe.multi_scale_sizes));
  for (const auto& pattern : recipe.frozen) lines.push_back("frozen " + pattern);
  const auto groups = describe_groups(family, size, recipe);
  for (const auto& group : groups.optimizer_groups) lines.push_back("optimizer group " + group);
  lines.push_back("freeze groups (freeze=N stops the first N): " + groups.freeze_groups);
  return lines;
}

}  // namespace libreyolo::core::trainer
