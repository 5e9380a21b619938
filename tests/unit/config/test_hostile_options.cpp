// What a careless option gets (issue #20, item 12): a suggestion for a synonym or a name with
// letters around ours, "empty value" for key=, and "is a folder" for cfg= a folder.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "../temp_dir.hpp"
#include "../error_of.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::config;

namespace {

using libreyolo::test::error_of;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("an unknown key that is another trainer's name for an option suggests ours") {
  const auto table = train_options();
  for (const char* typed : {"batchsize=16", "batch_size=16", "bs=16", "--train-batch-size=4"}) {
    INFO(typed);
    CHECK(contains(error_of([&] { read_user_options({typed}, table); }), "did you mean 'batch'?"));
  }
  CHECK(contains(error_of([&] { read_user_options({"img_size=320"}, table); }), "did you mean 'imgsz'?"));
  CHECK(contains(error_of([&] { read_user_options({"num_workers=2"}, table); }), "did you mean 'workers'?"));
  CHECK(contains(error_of([&] { read_user_options({"max_epochs=2"}, table); }), "did you mean 'epochs'?"));
  // The longest name inside the word wins: warmup_epochs, not epochs.
  CHECK(contains(error_of([&] { read_user_options({"warmup_epochs_count=2"}, table); }), "did you mean 'warmup_epochs'?"));
}

TEST_CASE("closest_match keeps typos first and says nothing for unrelated words") {
  const std::vector<std::string> keys = {"epochs", "batch", "imgsz", "momentum", "device"};
  CHECK(closest_match("epcohs", keys) == std::optional<std::string>("epochs"));
  CHECK(closest_match("batchsize", keys) == std::optional<std::string>("batch"));
  CHECK(closest_match("gpus", keys) == std::optional<std::string>("device"));
  CHECK_FALSE(closest_match("weights", keys).has_value());
  CHECK_FALSE(closest_match("bs", {"epochs"}).has_value());  // a synonym only for an option the command has
}

TEST_CASE("an empty value says it is empty, on the command line and in a cfg file") {
  const auto table = train_options();
  const auto line = error_of([&] { read_user_options({"epochs="}, table); });
  CHECK(contains(line, "option 'epochs' has an empty value in the command line"));
  CHECK(contains(line, "leave epochs out for the default (300)"));
  CHECK(contains(error_of([&] { read_user_options({"--data="}, table); }), "option 'data' has an empty value"));
  CHECK(contains(error_of([&] { read_user_options({"--epochs", ""}, table); }), "has an empty value"));
  // An unknown empty key is still an unknown key, with its suggestion.
  CHECK(contains(error_of([&] { read_user_options({"epoch="}, table); }), "did you mean 'epochs'?"));
  libreyolo::test::TempDir dir;
  std::ofstream(dir / "empty.yaml") << "epochs:\nbatch: 4\n";
  const auto cfg = error_of([&] { read_user_options({"cfg=" + (dir / "empty.yaml").string()}, table); });
  CHECK(contains(cfg, "option 'epochs' has an empty value in cfg file"));
  CHECK(contains(cfg, "delete the line for the default (300)"));
}

TEST_CASE("cfg= a folder says it is a folder; a cfg key that is not a name is refused") {
  const auto table = train_options();
  libreyolo::test::TempDir dir;
  CHECK(contains(error_of([&] { read_user_options({"cfg=" + dir.path().string()}, table); }), "is a folder"));
  std::ofstream(dir / "odd.yaml") << "? [epochs, batch]\n: 3\n";
  CHECK(contains(error_of([&] { read_user_options({"cfg=" + (dir / "odd.yaml").string()}, table); }),
                 "has a key that is not a name"));
  std::ofstream(dir / "nested.yaml") << "mosaic_scale: [[0.1], 2]\n";
  CHECK(contains(error_of([&] { read_user_options({"cfg=" + (dir / "nested.yaml").string()}, table); }),
                 "holds a nested list or mapping"));
}
