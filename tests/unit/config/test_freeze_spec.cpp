// freeze= read as LibreYOLO's parse_freeze_spec + normalize_freeze_selectors read it: counts,
// index lists, names, mixes, and the values it refuses.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "libreyolo/core/config/freeze_spec.hpp"
#include "libreyolo/core/error.hpp"
#include "../error_of.hpp"

using namespace libreyolo::core;
using config::FreezeSelector;
using config::parse_freeze_spec;

namespace {

using libreyolo::test::error_of;

std::vector<FreezeSelector> selectors(const std::string& text) { return parse_freeze_spec(text).selectors; }

std::vector<FreezeSelector> indices(std::initializer_list<int> values) { return {values.begin(), values.end()}; }

}  // namespace

TEST_CASE("freeze spec: the values that freeze nothing") {
  for (const char* off : {"", "  ", "none", "None", "null", "false", "False", "0", "[]", "''"}) {
    CAPTURE(off);
    const auto spec = parse_freeze_spec(off);
    CHECK(spec.empty());
    CHECK_FALSE(spec.count);
  }
}

TEST_CASE("freeze spec: N is the first N groups, quoted or not") {
  const auto spec = parse_freeze_spec("3");
  CHECK(spec.selectors == indices({0, 1, 2}));
  REQUIRE(spec.count);
  CHECK(*spec.count == 3);
  CHECK(spec.text == "3");
  CHECK(selectors(" '2' ") == indices({0, 1}));  // LibreYOLO: a decimal string is a count too
  CHECK(selectors("+1") == indices({0}));
}

TEST_CASE("freeze spec: lists of indices, with brackets, parentheses or bare commas") {
  CHECK(selectors("[0, 2]") == indices({0, 2}));
  CHECK(selectors("(4,1)") == indices({4, 1}));  // in the order written
  CHECK(selectors("0,2") == indices({0, 2}));
  CHECK(selectors("[0, 1,]") == indices({0, 1}));  // a trailing comma, as Python allows
  CHECK(selectors("['3', 1]") == indices({3, 1}));  // quoted indices are indices
  CHECK_FALSE(parse_freeze_spec("[0, 2]").count);
}

TEST_CASE("freeze spec: names, alone or mixed with indices") {
  CHECK(selectors("backbone") == std::vector<FreezeSelector>{std::string("backbone")});
  CHECK(selectors("'model.backbone'") == std::vector<FreezeSelector>{std::string("model.backbone")});
  CHECK(selectors("backbone.stem.*") == std::vector<FreezeSelector>{std::string("backbone.stem.*")});
  CHECK(selectors("[0, 'neck', \"head\"]") ==
        std::vector<FreezeSelector>{0, std::string("neck"), std::string("head")});
  CHECK(selectors("backbone, neck") == std::vector<FreezeSelector>{std::string("backbone"), std::string("neck")});
}

TEST_CASE("freeze spec: refused values say why and what to write") {
  const auto refused = [](const std::string& text) { return error_of([&] { parse_freeze_spec(text); }); };
  CHECK(refused("true").find("does not say what to freeze") != std::string::npos);
  CHECK(refused("True").find("option freeze=True is not valid") != std::string::npos);
  CHECK(refused("-1").find("a count of freeze groups cannot be negative") != std::string::npos);
  CHECK(refused("[0, -1]").find("a freeze group index cannot be negative") != std::string::npos);
  CHECK(refused("1.5").find("freeze counts whole groups") != std::string::npos);
  CHECK(refused("[0, 1.5]").find("is not a group index") != std::string::npos);
  CHECK(refused("[0, true]").find("not true") != std::string::npos);
  CHECK(refused("backbone.[ab]").find("character class") != std::string::npos);
  CHECK(refused("1000000").find("no model has 1000000 freeze groups") != std::string::npos);
  // Every refusal says what the option accepts.
  CHECK(refused("1.5").find("freeze=N for the first N freeze groups") != std::string::npos);
}

TEST_CASE("freeze spec: selectors as messages quote them") {
  CHECK(config::describe_selector(FreezeSelector{3}) == "3");
  CHECK(config::describe_selector(FreezeSelector{std::string("neck")}) == "'neck'");
}
