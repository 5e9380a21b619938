// What freeze=N counts for every bundled family, checked against LibreYOLO's trainers:
// get_freeze_groups where a family overrides it (YOLOv9: ten backbone stages, six neck stages,
// the head) and default_freeze_groups (the model's top-level modules) everywhere else. Each group
// must hold parameters of the real model (a misspelt module path would hold none), and no
// parameter may sit in two groups.
#include "../torch_doctest.hpp"

#include <set>
#include <string>
#include <vector>

#include "libreyolo/core/optim/freeze_selection.hpp"
#include "libreyolo/core/optim/glob_match.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/sdk/sdk.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo;

namespace {

const core::plugins::FamilyRegistry& registry() {
  static const auto loaded = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  return loaded;
}

struct FamilyGroups {
  std::vector<std::string> names;    // group names, in freeze=N order
  std::vector<std::size_t> members;  // parameters per group
  std::size_t parameters = 0, ungrouped = 0, in_two = 0;  // all; in no group; in more than one
};

bool covers(const sdk::FreezeGroup& group, const std::string& parameter) {
  for (const auto& pattern : group.patterns) {
    if (core::optim::glob_match(pattern, parameter)) return true;
  }
  return false;
}

FamilyGroups groups_of(const std::string& family_name, const std::string& size) {
  const auto& family = registry().require(family_name);
  torch::NoGradGuard no_grad;
  const auto model = family.family->create_detector({size, 80, 640});
  std::vector<std::string> parameters;
  for (const auto& item : model->named_parameters()) parameters.push_back(item.key());
  const auto groups = core::optim::freeze_groups_of(family.family->recipe(size).freeze_groups, parameters);
  FamilyGroups found;
  found.parameters = parameters.size();
  found.members.assign(groups.size(), 0);
  for (const auto& group : groups) found.names.push_back(group.name);
  for (const auto& name : parameters) {
    std::size_t holders = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!covers(groups[g], name)) continue;
      ++found.members[g];
      ++holders;
    }
    found.ungrouped += holders == 0 ? 1 : 0;
    found.in_two += holders > 1 ? 1 : 0;
  }
  return found;
}

void check_groups(const FamilyGroups& found, const std::vector<std::string>& expected) {
  CHECK(found.names == expected);
  for (std::size_t g = 0; g < found.members.size(); ++g) {
    CAPTURE(found.names[g]);
    CHECK(found.members[g] > 0);
  }
  CHECK(found.in_two == 0);
  CHECK(found.ungrouped == 0);  // every bundled model's parameters all sit in some group
}

}  // namespace

TEST_CASE("freeze groups: yolo9 declares LibreYOLO's YOLO9Trainer.get_freeze_groups, 17 at every size") {
  const std::vector<std::string> expected = {
      "backbone.conv0", "backbone.conv1", "backbone.elan1",  "backbone.down2",   "backbone.elan2",     "backbone.down3",
      "backbone.elan3", "backbone.down4", "backbone.elan4",  "backbone.spp",     "neck.elan_up1",      "neck.elan_up2",
      "neck.down1",     "neck.elan_down1", "neck.down2",     "neck.elan_down2",  "head"};
  for (const char* size : {"t", "c"}) {
    CAPTURE(size);
    const auto found = groups_of("yolo9", size);
    check_groups(found, expected);
  }
}

TEST_CASE("freeze groups: the other families get LibreYOLO's default, their top-level modules") {
  check_groups(groups_of("yolox", "n"), {"backbone", "head"});
  check_groups(groups_of("rtmdet", "t"), {"backbone", "neck", "head"});
  check_groups(groups_of("rtdetr", "r18"), {"backbone", "encoder", "decoder"});
  check_groups(groups_of("dfine", "n"), {"backbone", "encoder", "decoder"});
  check_groups(groups_of("example", "n"), {"backbone", "head"});
}
