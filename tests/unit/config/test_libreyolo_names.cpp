// LibreYOLO's option names and values, read with LibreYOLO's meaning (issue #19, item 5): each
// alias resolves to one canonical option, two names of one option are refused, and the options
// that only partly carry over (task, cache=true) say what they accept; freeze's syntax is checked.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "libreyolo/core/config/command_line.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/train_config.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "../temp_dir.hpp"
#include "../error_of.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::config;

namespace {

using libreyolo::test::error_of;

// The typed config `args` give (data= added), as train sees it.
TrainConfig config_of(std::vector<std::string> args) {
  const auto table = train_options();
  args.push_back("data=d");
  return make_train_config(resolve_options(table, read_user_options(args, table), "no family", {}));
}

}  // namespace

TEST_CASE("LibreYOLO names: mosaic and mixup are the probabilities mosaic_prob and mixup_prob") {
  const auto c = config_of({"mosaic=0.25", "mixup=0"});
  CHECK(c.mosaic_prob == doctest::Approx(0.25));
  CHECK(c.mixup_prob == 0.0);
  CHECK(config_of({"--mosaic", "0.5"}).mosaic_prob == doctest::Approx(0.5));
  CHECK(train_options().find("mosaic")->name == "mosaic_prob");
  CHECK(train_options().find("mixup")->name == "mixup_prob");
  // Probabilities, as in LibreYOLO: a value above 1 is out of range under either name.
  CHECK(error_of([] { config_of({"mosaic=2"}); }).find("mosaic_prob=2 is out of range") != std::string::npos);
}

TEST_CASE("LibreYOLO names: save_plots is plots, default true") {
  CHECK(config_of({}).plots);
  CHECK_FALSE(config_of({"save_plots=false"}).plots);
  CHECK_FALSE(config_of({"--save-plots=false"}).plots);
  CHECK_FALSE(config_of({"plots=false"}).plots);
  CHECK(config_of({"--save_plots"}).plots);  // a bare flag means true
}

TEST_CASE("LibreYOLO names: clip_max_norm is clip_grad") {
  CHECK(config_of({"clip_max_norm=0.1"}).clip_grad == doctest::Approx(0.1));
}

TEST_CASE("LibreYOLO names: scale stays our mosaic_scale range, and Ultralytics' gain is refused") {
  CHECK(config_of({"scale=0.5,1.5"}).mosaic_scale.low == doctest::Approx(0.5));
  CHECK(error_of([] { config_of({"scale=0.5"}); }).find("expected a range") != std::string::npos);
}

TEST_CASE("LibreYOLO names: two names of one option on a command line is an error naming both") {
  const auto table = train_options();
  const auto message = error_of([&] { parse_command_line({"mosaic=0.5", "mosaic_prob=0.3"}, table); });
  CHECK(message.find("'mosaic_prob' is given twice") != std::string::npos);
  CHECK(message.find("as 'mosaic' and 'mosaic_prob'") != std::string::npos);
  const auto reversed = error_of([&] { parse_command_line({"--plots", "save_plots=false"}, table); });
  CHECK(reversed.find("as 'plots' and 'save_plots'") != std::string::npos);
  // The same spelling twice keeps its own message.
  CHECK(error_of([&] { parse_command_line({"mixup=0", "mixup=1"}, table); }).find("given twice in the command line") !=
        std::string::npos);
}

TEST_CASE("LibreYOLO names: two names of one option in a cfg file is an error naming both") {
  const libreyolo::test::TempDir dir;
  std::ofstream(dir / "both.yaml") << "mixup: 0.5\nmixup_prob: 0.2\n";
  const auto table = train_options();
  const auto message = error_of([&] { read_user_options({"cfg=" + (dir / "both.yaml").string()}, table); });
  CHECK(message.find("as 'mixup' and 'mixup_prob'") != std::string::npos);
  CHECK(message.find("both.yaml") != std::string::npos);
  // An alias in the cfg file and the canonical name on the command line: the command line wins.
  std::ofstream(dir / "alias.yaml") << "mosaic: 0.5\n";
  CHECK(config_of({"cfg=" + (dir / "alias.yaml").string(), "mosaic_prob=0.1"}).mosaic_prob == doctest::Approx(0.1));
  CHECK(config_of({"cfg=" + (dir / "alias.yaml").string()}).mosaic_prob == doctest::Approx(0.5));
}

TEST_CASE("LibreYOLO values: cache=true is the ram cache, as in LibreYOLO") {
  CHECK(config_of({"cache=true"}).cache == "ram");
  CHECK(config_of({"cache=True"}).cache == "ram");
  CHECK(config_of({"cache=1"}).cache == "ram");
  CHECK(config_of({"cache=false"}).cache == "false");
  CHECK(config_of({"cache=no"}).cache == "false");
  CHECK(config_of({"cache=disk"}).cache == "disk");
  const auto message = error_of([] { config_of({"cache=gpu"}); });
  CHECK(message.find("one of false, ram, disk (true = ram") != std::string::npos);
}

TEST_CASE("LibreYOLO values: scheduler=flat_cosine is flatcosine") {
  CHECK(config_of({"scheduler=flat_cosine"}).scheduler == "flatcosine");
}

TEST_CASE("LibreYOLO names: val=false turns validation off, default on") {
  CHECK(config_of({}).val);
  CHECK_FALSE(config_of({"val=false"}).val);
}

TEST_CASE("LibreYOLO names: task=detect is accepted, every other task is refused with why") {
  CHECK(config_of({}).task == "detect");
  CHECK(config_of({"task=detect"}).task == "detect");
  const auto message = error_of([] { config_of({"task=segment"}); });
  CHECK(message.find("task=segment is not supported") != std::string::npos);
  CHECK(message.find("object detectors only") != std::string::npos);
  CHECK(val_options().find("task") != nullptr);
}

TEST_CASE("LibreYOLO names: freeze takes LibreYOLO's selectors, checked for syntax on the command line") {
  CHECK(config_of({}).freeze.empty());
  for (const char* accepted : {"freeze=0", "freeze=none", "freeze=False", "freeze=10", "freeze=backbone",
                               "freeze=[0, 2]", "freeze=0,neck"}) {
    CAPTURE(accepted);
    CHECK_NOTHROW(config_of({accepted}));
  }
  CHECK(config_of({"freeze=[0, 2]"}).freeze == "[0, 2]");  // kept as typed: args.yaml and resume compare it
  const auto message = error_of([] { config_of({"freeze=true"}); });
  CHECK(message.find("option freeze=true is not valid") != std::string::npos);
  CHECK(message.find("does not say what to freeze") != std::string::npos);
  CHECK(error_of([] { config_of({"freeze=-2"}); }).find("cannot be negative") != std::string::npos);
}

TEST_CASE("LibreYOLO names: pretrained is an option, default true") {
  CHECK(config_of({}).pretrained);
  CHECK_FALSE(config_of({"pretrained=false"}).pretrained);
}
