#include <doctest/doctest.h>

#include <algorithm>

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::plugins;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = libreyolo::test_paths::fixture_plugin_dir();
const fs::path kFamilies = libreyolo::test_paths::family_dir();

const RefusedPlugin* refusal_of(const FamilyRegistry& registry, const std::string& file_part) {
  for (const auto& r : registry.refused()) {
    if (r.file.filename().string().find(file_part) != std::string::npos) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a folder of broken plugins: each is refused with its reason, the good one loads") {
  const auto registry = load_plugins({kFixtures});
  REQUIRE(registry.families().size() == 1);
  CHECK(registry.families().front().info.name == "fixture_good");
  CHECK(registry.families().front().file.filename() == "libfixture_a_good.so");

  const auto* duplicate = refusal_of(registry, "b_duplicate");
  REQUIRE(duplicate);
  CHECK(duplicate->reason.find("already provided by") != std::string::npos);
  CHECK(duplicate->reason.find("libfixture_a_good.so") != std::string::npos);

  const auto* throws = refusal_of(registry, "c_throws");
  REQUIRE(throws);
  CHECK(throws->reason.find("failed while registering: fixture refuses to register") != std::string::npos);

  const auto* bad_name = refusal_of(registry, "d_bad_name");
  REQUIRE(bad_name);
  CHECK(bad_name->reason.find("[a-z0-9_]") != std::string::npos);

  const auto* abi = refusal_of(registry, "e_abi_mismatch");
  REQUIRE(abi);
  CHECK(abi->reason.find("ABI mismatch") != std::string::npos);
  CHECK(abi->reason.find("sdk-abi=0") != std::string::npos);
  CHECK(abi->reason.find(host_abi_stamp()) != std::string::npos);

  const auto* no_entry = refusal_of(registry, "f_no_entry_point");
  REQUIRE(no_entry);
  CHECK(no_entry->reason.find("does not export libreyolo_family_abi_stamp") != std::string::npos);

  const auto* not_library = refusal_of(registry, "g_not_a_library");
  REQUIRE(not_library);
  CHECK(not_library->reason.find("not a loadable shared library") != std::string::npos);

  CHECK(registry.refused().size() == 6);
}

TEST_CASE("the ABI check names the differing fields") {
  const auto mismatch = abi_mismatch("sdk-abi=1;torch=2.11.0;cxx-abi=libstdc++-cxx11",
                                     "sdk-abi=1;torch=1.13.0;cxx-abi=libstdc++-cxx11");
  REQUIRE(mismatch);
  CHECK(mismatch->find("torch 2.11.0 (host: 1.13.0)") != std::string::npos);
  CHECK(mismatch->find("sdk-abi 1") == std::string::npos);
  CHECK_FALSE(abi_mismatch(host_abi_stamp(), host_abi_stamp()).has_value());
}

TEST_CASE("search path: explicit folders, then the environment, then next to the binary") {
  const auto dirs = plugin_search_path({"/opt/a"}, "/opt/b::/opt/c:/opt/a", "/usr/local/bin");
  REQUIRE(dirs.size() == 5);
  CHECK(dirs[0] == "/opt/a");
  CHECK(dirs[1] == "/opt/b");
  CHECK(dirs[2] == "/opt/c");
  CHECK(dirs[3] == "/usr/local/bin/lib/libreyolo/families");
  CHECK(dirs[4] == "/usr/local/lib/libreyolo/families");
}

TEST_CASE("a family requested but not loaded lists the loaded ones") {
  const auto registry = load_plugins({kFixtures});
  try {
    registry.require("yolo9");
    FAIL("require should throw");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.find("family 'yolo9' is not loaded") != std::string::npos);
    CHECK(message.find("loaded families: fixture_good") != std::string::npos);
    CHECK(message.find("6 plugin(s) refused") != std::string::npos);
  }
}

TEST_CASE("model names resolve to family + size") {
  const auto registry = load_plugins({kFixtures, kFamilies});
  CHECK(registry.resolve_model_name("fixture_goods").size == "s");
  CHECK(registry.resolve_model_name("fixture_good-n").size == "n");
  CHECK(registry.resolve_model_name("examplen").family->info.name == "example");
  CHECK_THROWS_WITH_AS(registry.resolve_model_name("fixture_goodx"),
                       doctest::Contains("its sizes are: fixture_goodn, fixture_goods"), Error);
  CHECK_THROWS_WITH_AS(registry.resolve_model_name("nanodet-m"), doctest::Contains("names no loaded family"),
                       Error);
}

TEST_CASE("a family's policy and recipe become the family option layer") {
  const auto registry = load_plugins({kFixtures});
  const auto& family = registry.require("fixture_good");
  const auto table = config::train_options();
  const auto values = family_option_defaults(family, "s", table);
  auto value = [&](const std::string& key) -> std::string {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == key; });
    return it == values.end() ? "(unset)" : config::format_option_value(it->second);
  };
  CHECK(value("amp") == "false");
  CHECK(value("sync_bn") == "false");
  CHECK(value("imgsz") == "416");
  CHECK(value("lr0") == "0.02");
  CHECK(value("scheduler") == "cosine");
  CHECK(value("mosaic_scale") == "0.25,1.75");
  CHECK(value("epochs") == "7");
  CHECK(value("momentum") == "(unset)");
  // A val table has no lr0: recipe keys outside the table are left out.
  const auto val_values = family_option_defaults(family, "n", config::val_options());
  CHECK(std::none_of(val_values.begin(), val_values.end(), [](const auto& kv) { return kv.first == "lr0"; }));
}
