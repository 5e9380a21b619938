#pragma once
// Which parameters the freeze= option stops: LibreYOLO's apply_freeze (training/freezing.py)
// over parameter names, so the rules are testable without a model. Torch-free; the trainer
// applies the choice (requires_grad false, BatchNorm layers in eval mode).
//
//   - An index selects that freeze group (sdk/freeze_groups.hpp): every parameter one of the
//     group's globs matches.
//   - A name selects every parameter of a group whose name it matches, of a module whose path it
//     matches, and every parameter whose name it matches. A name matches a path when it is the
//     path, a prefix of it up to a dot ("backbone" matches "backbone.stem.conv.weight"), or, with
//     * or ?, a glob over it ("*.bn"). "model.backbone" and "backbone" are the same name, as in
//     LibreYOLO, whose models sit under `model.`. "all" selects every parameter.
//   - Refused, each with what to do: an index past the last group, a name that selects nothing,
//     and a choice that leaves no trainable parameter.

#include <cstddef>
#include <string>
#include <vector>

#include "libreyolo/core/config/freeze_spec.hpp"
#include "libreyolo/sdk/freeze_groups.hpp"

namespace libreyolo::core::optim {

// LibreYOLO's default_freeze_groups from a model's parameter names (named_parameters() order):
// one group per top-level module that holds a parameter, in order of first appearance, which is
// the modules' registration order, each covering "<module>.*". A model whose parameters all sit
// on the root gets one group, "model", covering every parameter.
std::vector<sdk::FreezeGroup> default_freeze_groups(const std::vector<std::string>& parameter_names);

// The groups freeze=N counts on a model: the recipe's `declared` ones, or the default above.
std::vector<sdk::FreezeGroup> freeze_groups_of(const std::vector<sdk::FreezeGroup>& declared,
                                               const std::vector<std::string>& parameter_names);

struct FreezeChoice {
  std::vector<std::size_t> frozen;  // indices into the parameter names, ascending
  std::vector<std::size_t> groups;  // the groups selected (by index or by name), ascending
};

// The parameters `spec` freezes. `trainable[i]` says whether parameter i trains now (the
// recipe's frozen patterns may have stopped some already); `model` names the model in messages
// ("yolo9t"). Throws core::Error for an index past the last group, a selector that selects
// nothing, and a choice that freezes every trainable parameter.
FreezeChoice choose_frozen(const config::FreezeSpec& spec, const std::vector<sdk::FreezeGroup>& groups,
                           const std::vector<std::string>& parameter_names, const std::vector<bool>& trainable,
                           const std::string& model);

// "0 backbone, 1 head": the groups as freeze=N counts them, for messages and `families NAME`.
std::string describe_freeze_groups(const std::vector<sdk::FreezeGroup>& groups);

}  // namespace libreyolo::core::optim
