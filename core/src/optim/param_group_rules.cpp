#include "libreyolo/core/optim/param_group_rules.hpp"

#include <torch/nn/module.h>

#include <cmath>
#include <unordered_set>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"

namespace libreyolo::core::optim {

namespace {

bool matches_any(const std::vector<std::string>& patterns, const std::string& name) {
  for (const auto& pattern : patterns) {
    if (glob_match(pattern, name)) return true;
  }
  return false;
}

// The index of the first rule with a pattern matching `name`; rules.size() for none.
std::size_t first_rule_for(const std::vector<sdk::ParamGroupRule>& rules, const std::string& name) {
  for (std::size_t r = 0; r < rules.size(); ++r) {
    if (matches_any(rules[r].patterns, name)) return r;
  }
  return rules.size();
}

void check_rules(const std::vector<sdk::ParamGroupRule>& rules) {
  const std::string todo = "fix the param_groups of the family's recipe";
  std::unordered_set<std::string> names{"default"};  // the unmatched parameters' group
  for (const auto& rule : rules) {
    if (rule.name.empty()) {
      throw Error("A parameter-group rule has no name", "logs and `families NAME` list groups by name", todo);
    }
    if (!names.insert(rule.name).second) {
      throw Error("Two parameter groups are named '" + rule.name + "'",
                  "group names identify groups in logs (\"default\" is the unmatched parameters' group)", todo);
    }
    const bool bad_decay = rule.weight_decay && !(std::isfinite(*rule.weight_decay) && *rule.weight_decay >= 0.0);
    if (!(std::isfinite(rule.lr_scale) && rule.lr_scale >= 0.0) || bad_decay) {
      throw Error("Parameter group '" + rule.name + "' has a negative or non-finite lr_scale or weight_decay",
                  "both multiply the parameters' update", todo);
    }
  }
}

// Why rule `r` got no parameter: its patterns match no name, or every name they match fell to
// an earlier rule (then the rule order is probably wrong).
std::string unclaimed_rule_warning(const std::vector<sdk::ParamGroupRule>& rules, std::size_t r,
                                   const std::vector<NamedParameter>& parameters) {
  for (const auto& parameter : parameters) {
    if (matches_any(rules[r].patterns, parameter.name)) {
      return "parameter group '" + rules[r].name + "': every parameter it matches (first: " + parameter.name +
             ") went to an earlier rule";
    }
  }
  return "parameter group '" + rules[r].name + "' matches no parameter of this model";
}

}  // namespace

ParamSplit split_by_rules(const torch::nn::Module& model, const std::vector<sdk::ParamGroupRule>& rules,
                          double weight_decay) {
  if (rules.empty()) return split_param_groups(model, weight_decay);  // LibreYOLO's YOLO split
  check_rules(rules);

  std::vector<ParamGroup> groups;  // one per rule, then "default" for what no rule matches
  for (const auto& rule : rules) {
    groups.push_back({rule.name, {}, rule.weight_decay.value_or(weight_decay), rule.lr_scale});
  }
  groups.push_back({"default", {}, weight_decay, 1.0});

  const auto parameters = unique_named_parameters(model);
  // Frozen parameters count as claimed: a rule naming only frozen parameters is no mistake.
  std::vector<bool> claimed(rules.size(), false);
  for (const auto& parameter : parameters) {
    const std::size_t r = first_rule_for(rules, parameter.name);
    if (r < rules.size()) claimed[r] = true;
    if (parameter.tensor.requires_grad()) groups[r].params.push_back(parameter.tensor);
  }

  ParamSplit split;
  for (std::size_t r = 0; r < rules.size(); ++r) {
    if (!claimed[r]) split.warnings.push_back(unclaimed_rule_warning(rules, r, parameters));
  }
  for (auto& group : groups) {
    if (!group.params.empty()) split.groups.push_back(std::move(group));
  }
  if (split.groups.empty()) {
    throw Error("The model has no trainable parameters",
                "every parameter has requires_grad=false (the recipe's frozen patterns or layer freezing froze them all)",
                "freeze fewer layers");
  }
  return split;
}

FreezeReport freeze_parameters(torch::nn::Module& model, const std::vector<std::string>& patterns) {
  FreezeReport report;
  std::vector<bool> used(patterns.size(), false);
  for (auto& parameter : unique_named_parameters(model)) {
    bool matched = false;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      if (!glob_match(patterns[i], parameter.name)) continue;
      used[i] = true;  // every pattern that matches, for the report
      matched = true;
    }
    if (!matched) continue;
    parameter.tensor.requires_grad_(false);  // the model's own tensor: the handle shares it
    report.frozen.push_back(parameter.name);
    report.parameters += parameter.tensor.numel();
  }
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (!used[i]) report.unmatched_patterns.push_back(patterns[i]);
  }
  return report;
}

std::vector<ParamGroupRow> describe_param_groups(const std::vector<ParamGroup>& groups) {
  std::vector<ParamGroupRow> rows;
  rows.reserve(groups.size());
  for (const auto& group : groups) {
    ParamGroupRow row{group.name, group.params.size(), 0, group.lr_mult, group.weight_decay};
    for (const auto& param : group.params) row.parameters += param.numel();
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace libreyolo::core::optim
