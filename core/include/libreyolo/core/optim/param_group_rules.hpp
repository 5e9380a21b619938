#pragma once
// A family recipe's parameter-group rules and frozen patterns (sdk::ParamGroupRule, whose
// header states the semantics) applied to a model: optimizer groups, frozen parameters, and
// plain rows describing the groups for `families NAME` and the training log.
//
// Parameters are visited in the model's named_parameters() order, each tensor once under its
// first name (PyTorch's named_parameters() drops repeats the same way), so a group's order is
// the order LibreYOLO's own name-matching loops produce.

#include <libreyolo/sdk/param_group_rules.hpp>
#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libreyolo/core/optim/glob_match.hpp"  // the pattern language
#include "libreyolo/core/optim/param_groups.hpp"

namespace torch::nn {
class Module;
}

namespace libreyolo::core::optim {

// The optimizer groups `rules` give `model`'s trainable parameters.
// - No rules: exactly split_param_groups(model, weight_decay), LibreYOLO's YOLO split.
// - Otherwise one group per rule that got a trainable parameter, in rule order, then
//   "default" (lr x 1, `weight_decay`) for the parameters no rule matches. A parameter joins
//   the first rule with a matching pattern. Each group's lr_mult is its rule's lr_scale and
//   its weight decay the rule's, or `weight_decay` when the rule leaves it unset. Frozen
//   parameters (requires_grad false) join no group.
// A rule no parameter falls to (frozen ones included) is not an error, since a size may lack
// the part it names; it is reported in ParamSplit::warnings. Throws core::Error for a rule
// without a name, two rules of one name (or one named "default"), a negative or non-finite
// lr_scale / weight_decay, and when no trainable parameter is left.
ParamSplit split_by_rules(const torch::nn::Module& model,
                          const std::vector<sdk::ParamGroupRule>& rules, double weight_decay);

struct FreezeReport {
  std::vector<std::string> frozen;               // parameter names, named_parameters() order
  int64_t parameters = 0;                        // values in them (sum of numel)
  std::vector<std::string> unmatched_patterns;   // patterns that matched no parameter name
};

// Sets requires_grad(false) on every parameter whose name matches one of `patterns` (glob,
// as above), parameters already frozen included (they are reported too). Buffers and
// BatchNorm statistics are left alone: use sdk::FrozenBatchNorm2d for norms whose statistics
// must not move. Call it before split_by_rules, so the frozen parameters join no group.
FreezeReport freeze_parameters(torch::nn::Module& model, const std::vector<std::string>& patterns);

// One optimizer group, as `families NAME` and the training log print it.
struct ParamGroupRow {
  std::string name;
  std::size_t tensors = 0;  // parameter tensors
  int64_t parameters = 0;   // values in them
  double lr_scale = 1.0;    // the group's lr_mult
  double weight_decay = 0.0;
};

std::vector<ParamGroupRow> describe_param_groups(const std::vector<ParamGroup>& groups);

}  // namespace libreyolo::core::optim
