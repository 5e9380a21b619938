#pragma once
// The freeze groups of a family: what LibreYOLO's `freeze=N` counts. freeze=N stops the first N
// groups from training (requires_grad false, no optimizer group, their BatchNorm layers in eval
// mode so the running statistics stay as they are); freeze=[0, 2] names groups by index;
// freeze=NAME matches group names, module paths and parameter names. Torch-free.
//
// A group is a name and the parameter-name globs it covers, in the pattern language of
// param_group_rules.hpp ("backbone.conv0.*"). Groups come in the order freeze=N counts them.
//
// A recipe that declares no groups gets LibreYOLO's default_freeze_groups: one group per
// top-level module of the detector that holds a parameter, in registration order (a YOLOX
// detector: backbone, head; an RT-DETR one: backbone, encoder, decoder). A family declares its
// own where LibreYOLO's trainer overrides get_freeze_groups, e.g. YOLOv9's ten backbone stages,
// six neck stages and head:
//
//   recipe.freeze_groups = sdk::module_freeze_groups({"backbone.conv0", "backbone.conv1", ..., "head"});

#include <string>
#include <vector>

namespace libreyolo::sdk {

struct FreezeGroup {
  std::string name;                   // what the log and `families NAME` show; freeze=NAME matches it
  std::vector<std::string> patterns;  // parameter-name globs; a parameter in any of them belongs to the group
};

// One group per module path, each covering every parameter under it: {"backbone.conv0",
// {"backbone.conv0.*"}}. Inline: a family needs no SDK symbol for it.
inline std::vector<FreezeGroup> module_freeze_groups(const std::vector<std::string>& module_paths) {
  std::vector<FreezeGroup> groups;
  groups.reserve(module_paths.size());
  for (const auto& path : module_paths) groups.push_back({path, {path + ".*"}});
  return groups;
}

}  // namespace libreyolo::sdk
