// Which parameters freeze= stops, on parameter names alone: LibreYOLO's default_freeze_groups
// and apply_freeze's selection (indices, names, globs, "model." spellings, "all") and refusals.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "libreyolo/core/config/freeze_spec.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/freeze_selection.hpp"
#include "../error_of.hpp"

using namespace libreyolo;
using core::optim::choose_frozen;
using core::optim::default_freeze_groups;

namespace {

// A small detector's names, in named_parameters() order.
const std::vector<std::string> kNames = {
    "backbone.stem.conv.weight",   // 0
    "backbone.stem.bn.weight",     // 1
    "backbone.stage1.conv.weight", // 2
    "neck.lateral.conv.weight",    // 3
    "neck.lateral.bn.bias",        // 4
    "head.cls.weight",             // 5
    "head.cls.bias",               // 6
};

std::vector<bool> all_trainable() { return std::vector<bool>(kNames.size(), true); }

std::vector<std::size_t> frozen_by(const std::string& text, const std::vector<sdk::FreezeGroup>& groups) {
  return choose_frozen(core::config::parse_freeze_spec(text), groups, kNames, all_trainable(), "testn").frozen;
}

std::vector<std::size_t> frozen_by(const std::string& text) { return frozen_by(text, default_freeze_groups(kNames)); }

using libreyolo::test::error_of;

}  // namespace

TEST_CASE("default freeze groups: the top-level modules with parameters, in order of appearance") {
  const auto groups = default_freeze_groups(kNames);
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].name == "backbone");
  CHECK(groups[0].patterns == std::vector<std::string>{"backbone.*"});
  CHECK(groups[1].name == "neck");
  CHECK(groups[2].name == "head");
  // A parameter on the root belongs to no top-level module; a model with only such parameters
  // is one group, "model", as LibreYOLO's fallback.
  CHECK(default_freeze_groups({"scale", "backbone.w"}).size() == 1);
  const auto root_only = default_freeze_groups({"scale", "offset"});
  REQUIRE(root_only.size() == 1);
  CHECK(root_only[0].name == "model");
  CHECK(default_freeze_groups({}).empty());
  CHECK(core::optim::describe_freeze_groups(groups) == "0 backbone, 1 neck, 2 head");
}

TEST_CASE("freeze selection: N, index lists and the family's declared groups") {
  CHECK(frozen_by("1") == std::vector<std::size_t>{0, 1, 2});
  CHECK(frozen_by("2") == std::vector<std::size_t>{0, 1, 2, 3, 4});
  CHECK(frozen_by("[2]") == std::vector<std::size_t>{5, 6});
  CHECK(frozen_by("0,2") == std::vector<std::size_t>{0, 1, 2, 5, 6});
  // Declared groups are counted instead of the top-level modules: YOLOv9-style stages.
  const auto stages = sdk::module_freeze_groups({"backbone.stem", "backbone.stage1", "neck", "head"});
  CHECK(frozen_by("1", stages) == std::vector<std::size_t>{0, 1});
  CHECK(frozen_by("3", stages) == std::vector<std::size_t>{0, 1, 2, 3, 4});
  const auto choice =
      choose_frozen(core::config::parse_freeze_spec("2"), stages, kNames, all_trainable(), "testn");
  CHECK(choice.groups == std::vector<std::size_t>{0, 1});
}

TEST_CASE("freeze selection: names match groups, module paths, parameters and globs") {
  CHECK(frozen_by("neck") == std::vector<std::size_t>{3, 4});
  CHECK(frozen_by("model.neck") == std::vector<std::size_t>{3, 4});        // LibreYOLO's spelling
  CHECK(frozen_by("backbone.stem") == std::vector<std::size_t>{0, 1});      // a module path
  CHECK(frozen_by("head.cls.bias") == std::vector<std::size_t>{6});        // a parameter
  CHECK(frozen_by("*.bn") == std::vector<std::size_t>{1, 4});              // a glob over module paths
  CHECK(frozen_by("*.weight") == std::vector<std::size_t>{0, 1, 2, 3, 5}); // a glob over names
}

TEST_CASE("freeze selection: a group's name counts even where it is no module path") {
  const std::vector<sdk::FreezeGroup> named = {{"early", {"backbone.*"}}, {"late", {"neck.*", "head.*"}}};
  CHECK(frozen_by("late", named) == std::vector<std::size_t>{3, 4, 5, 6});
  CHECK(frozen_by("[0, head.cls]", named) == std::vector<std::size_t>{0, 1, 2, 5, 6});
}

TEST_CASE("freeze selection: refusals name the model, the groups and what to do") {
  const auto groups = default_freeze_groups(kNames);
  const auto refused = [&](const std::string& text, std::vector<bool> trainable = all_trainable()) {
    return error_of([&] { choose_frozen(core::config::parse_freeze_spec(text), groups, kNames, trainable, "testn"); });
  };
  const auto too_many = refused("99");
  CHECK(too_many.find("freeze=99 asks for the first 99 freeze groups, but testn has 3") != std::string::npos);
  CHECK(too_many.find("0 backbone, 1 neck, 2 head") != std::string::npos);
  CHECK(too_many.find("use freeze=2 or less") != std::string::npos);
  CHECK(refused("[0, 5]").find("freeze index 5 (in freeze=[0, 5]) is out of range for testn") != std::string::npos);
  CHECK(refused("[0, 5]").find("use indices from 0 to 2") != std::string::npos);
  const auto typo = refused("bakbone");
  CHECK(typo.find("freeze selector 'bakbone' (in freeze=bakbone) matches no parameter of testn") != std::string::npos);
  CHECK(typo.find("testn's freeze groups are 0 backbone, 1 neck, 2 head") != std::string::npos);
  CHECK(refused("back").find("matches no parameter") != std::string::npos);  // a prefix ends at a dot
  const auto everything = refused("3");
  CHECK(everything.find("freeze=3 would leave testn nothing to train") != std::string::npos);
  CHECK(everything.find("freeze at most 2 groups") != std::string::npos);
  CHECK(refused("all").find("would leave testn nothing to train") != std::string::npos);
  // Parameters the recipe froze already do not count as trainable: freezing the rest refuses.
  std::vector<bool> head_frozen = all_trainable();
  head_frozen[5] = head_frozen[6] = false;
  CHECK(refused("2", head_frozen).find("nothing to train") != std::string::npos);
  CHECK_NOTHROW(choose_frozen(core::config::parse_freeze_spec("1"), groups, kNames, head_frozen, "testn"));
}

TEST_CASE("freeze selection: nothing to freeze chooses nothing") {
  const auto choice = choose_frozen(core::config::parse_freeze_spec("0"), default_freeze_groups(kNames), kNames,
                                    all_trainable(), "testn");
  CHECK(choice.frozen.empty());
  CHECK(choice.groups.empty());
}
