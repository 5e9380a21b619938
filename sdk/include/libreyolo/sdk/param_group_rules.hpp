#pragma once
// Optimizer parameter groups and frozen parameters as rules over parameter names, declared in
// the family's recipe. Torch-free.
//
// Patterns are globs over the full parameter name as the state dict spells it
// ("backbone.stem.stem1.conv.weight"): `*` matches any run of characters (dots included), `?`
// one character, everything else itself. Each trainable parameter joins the group of the first
// rule with a matching pattern; a parameter no rule matches joins the "default" group (the
// run's lr and weight_decay). Groups come in rule order, then "default"; a rule that gets no
// parameter adds no group (the host logs a warning when it matches no name at all, or only
// names earlier rules took: a size may lack a part, but a typo looks the same). A tensor shared
// under two names counts under its first name only, as PyTorch's named_parameters() yields it.
// Frozen parameters join no group. A recipe with no rules gets LibreYOLO's YOLO split instead:
// BatchNorm weights and biases without decay, other weights with decay, and parameters named
// neither weight nor bias in no group (LibreYOLO's trainer never trains those).
//
//   // D-FINE: backbone at half the learning rate; LibreYOLO's substring tests "norm", ".bn.",
//   // "bias", "lab.scale" mark the parameters without decay.
//   recipe.param_groups = {
//       {"backbone_no_decay", {"backbone.*norm*", "backbone.*.bn.*", "backbone.*bias*",
//                              "backbone.*lab.scale*"}, 0.5, 0.0},
//       {"backbone", {"backbone.*"}, 0.5, std::nullopt},
//       {"no_decay", {"*norm*", "*.bn.*", "*bias*", "*lab.scale*"}, 1.0, 0.0},
//   };  // the rest: "default", lr x 1 with the run's weight_decay
//   recipe.frozen = {"backbone.stem.*"};

#include <optional>
#include <string>
#include <vector>

namespace libreyolo::sdk {

struct ParamGroupRule {
  std::string name;                   // the group's name in logs and `families NAME`
  std::vector<std::string> patterns;  // any of them
  double lr_scale = 1.0;              // the group's lr = the schedule's lr x lr_scale
  std::optional<double> weight_decay; // unset: the run's weight_decay option
};

}  // namespace libreyolo::sdk
