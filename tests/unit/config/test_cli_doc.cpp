// docs/cli.md documents every option once, with its default: this test keeps the two in step.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "libreyolo/core/config/option_table.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::core::config;

namespace {

std::string read_cli_doc() {
  std::ifstream in(std::string(libreyolo::test_paths::source_dir()) + "/docs/cli.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void check_documented(const OptionTable& table, const std::string& doc) {
  for (const auto& spec : table.specs()) {
    CAPTURE(spec.name);
    const std::string default_cell = spec.default_value.empty() ? "-" : "`" + spec.default_value + "`";
    CHECK(doc.find("| `" + spec.name + "` | " + default_cell + " |") != std::string::npos);
  }
}

// Every other name of an option is listed as `alias` = `option`.
void check_aliases_documented(const OptionTable& table, const std::string& doc) {
  for (const auto& [alias, target] : table.aliases()) {
    CAPTURE(alias);
    CHECK(doc.find("`" + alias + "` = `" + target + "`") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("docs/cli.md lists every train, val and predict option with its default") {
  const auto doc = read_cli_doc();
  REQUIRE_FALSE(doc.empty());
  check_documented(train_options(), doc);
  check_documented(val_options(), doc);
  check_documented(predict_options(), doc);
}

TEST_CASE("docs/cli.md names every alias with the option it stands for") {
  const auto doc = read_cli_doc();
  REQUIRE_FALSE(doc.empty());
  check_aliases_documented(train_options(), doc);
  check_aliases_documented(val_options(), doc);
}
