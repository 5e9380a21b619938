#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "libreyolo/core/config/command_line.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "../temp_dir.hpp"
#include "../error_of.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::config;

namespace {

using libreyolo::test::error_of;

std::string value_of(const CommandLine& cl, const std::string& key) {
  for (const auto& [k, v] : cl.options) {
    if (k == key) return v;
  }
  return "(unset)";
}

}  // namespace

TEST_CASE("key=value and --key value styles give the same options") {
  const auto table = train_options();
  const auto libreyolo_style = parse_command_line({"model=yolo9s", "epochs=3", "amp=false"}, table);
  const auto gnu_style = parse_command_line({"--model", "yolo9s", "--epochs=3", "--amp", "false"}, table);
  for (const auto* cl : {&libreyolo_style, &gnu_style}) {
    CHECK(value_of(*cl, "model") == "yolo9s");
    CHECK(value_of(*cl, "epochs") == "3");
    CHECK(value_of(*cl, "amp") == "false");
    CHECK(cl->positionals.empty());
  }
}

TEST_CASE("styles mix, dashes normalise, bare boolean flags mean true, aliases resolve") {
  const auto cl = parse_command_line({"model=yolo9s", "--exist-ok", "--warmup-epochs", "2", "scale=0.5,1.5"},
                                     train_options());
  CHECK(value_of(cl, "exist_ok") == "true");
  CHECK(value_of(cl, "warmup_epochs") == "2");
  CHECK(value_of(cl, "mosaic_scale") == "0.5,1.5");
}

TEST_CASE("words without = are positional") {
  const auto cl = parse_command_line({"run", "coco128", "--batch", "8"}, train_options());
  CHECK((cl.positionals == std::vector<std::string>{"run", "coco128"}));
  CHECK(value_of(cl, "batch") == "8");
}

TEST_CASE("an unknown key is an error that suggests the closest valid key") {
  const auto table = train_options();
  CHECK(error_of([&] { parse_command_line({"epoch=3"}, table); }).find("did you mean 'epochs'") !=
        std::string::npos);
  CHECK(error_of([&] { parse_command_line({"--lrf", "0.1"}, table); }).find("did you mean 'lr0'") !=
        std::string::npos);
  CHECK(error_of([&] { parse_command_line({"--warmup_epoch=2"}, table); })
            .find("did you mean 'warmup_epochs'") != std::string::npos);
  CHECK(error_of([&] { parse_command_line({"zzzzzzzz=1"}, table); }).find("no option has a similar name") !=
        std::string::npos);
}

TEST_CASE("a key given twice is an error") {
  CHECK(error_of([] { parse_command_line({"epochs=3", "--epochs", "4"}, train_options()); })
            .find("given twice") != std::string::npos);
}

TEST_CASE("a malformed value names the key, the value and the expected type") {
  const auto table = train_options();
  const auto message = error_of([&] { read_user_options({"epochs=abc"}, table); });
  CHECK(message.find("'epochs'") != std::string::npos);
  CHECK(message.find("'abc'") != std::string::npos);
  CHECK(message.find("an integer") != std::string::npos);
  CHECK(error_of([&] { read_user_options({"amp=maybe"}, table); }).find("true or false") != std::string::npos);
  CHECK(error_of([&] { read_user_options({"optimizer=rmsprop"}, table); }).find("one of sgd, adam, adamw") !=
        std::string::npos);
  CHECK(error_of([&] { read_user_options({"lr0=0.01x"}, table); }).find("a number") != std::string::npos);
  CHECK(error_of([&] { read_user_options({"mosaic_scale=2,1"}, table); }).find("low > high") !=
        std::string::npos);
  CHECK(error_of([&] { read_user_options({"lr0=nan"}, table); }).find("a number") != std::string::npos);
}

TEST_CASE("typed values parse in the forms users write") {
  const auto table = train_options();
  CHECK(std::get<bool>(parse_option_value(*table.find("amp"), "Yes", "test")) == true);
  CHECK(std::get<bool>(parse_option_value(*table.find("amp"), "0", "test")) == false);
  CHECK(std::get<long long>(parse_option_value(*table.find("batch"), "-1", "test")) == -1);
  CHECK(std::get<double>(parse_option_value(*table.find("lr0"), "1e-3", "test")) == doctest::Approx(0.001));
  CHECK(std::get<std::string>(parse_option_value(*table.find("optimizer"), "AdamW", "test")) == "adamw");
  const auto range = std::get<libreyolo::sdk::Range>(parse_option_value(*table.find("mosaic_scale"), "[0.1, 2]", "test"));
  CHECK(range.low == doctest::Approx(0.1));
  CHECK(range.high == doctest::Approx(2.0));
  CHECK(format_option_value(OptionValue{0.1}) == "0.1");
  CHECK(format_option_value(OptionValue{libreyolo::sdk::Range{0.5, 1.5}}) == "0.5,1.5");
}

TEST_CASE("precedence: command line > cfg file > family recipe > global default") {
  const libreyolo::test::TempDir dir;
  const auto cfg = dir / "cfg.yaml";
  std::ofstream(cfg) << "epochs: 50\nlr0: 0.005\nmosaic_scale: [0.3, 1.2]\nmodel: yolo9s\n";

  const auto table = train_options();
  const auto user = read_user_options({"cfg=" + cfg.string(), "epochs=3"}, table);
  CHECK(user.lookup("model") == std::optional<std::string>("yolo9s"));
  const auto options = resolve_options(table, user, "test family",
                                       {{"epochs", 100LL}, {"lr0", 0.02}, {"momentum", 0.9}});
  CHECK(options.get_int("epochs") == 3);                 // command line beats cfg and family
  CHECK(options.at("epochs").source == OptionSource::command_line);
  CHECK(options.get_double("lr0") == doctest::Approx(0.005));  // cfg beats family
  CHECK(options.at("lr0").source == OptionSource::cfg_file);
  CHECK(options.get_double("momentum") == doctest::Approx(0.9));  // family beats default
  CHECK(options.at("momentum").source == OptionSource::family);
  CHECK(options.get_double("weight_decay") == doctest::Approx(0.0005));  // global default
  CHECK(options.at("weight_decay").source == OptionSource::global_default);
  CHECK(options.get_range("mosaic_scale").low == doctest::Approx(0.3));
}

TEST_CASE("cfg file problems are clear") {
  const libreyolo::test::TempDir dir;
  const auto table = train_options();
  CHECK(error_of([&] { read_user_options({"cfg=" + (dir / "missing.yaml").string()}, table); })
            .find("does not exist") != std::string::npos);
  std::ofstream(dir / "typo.yaml") << "epochs: 5\nmomentun: 0.9\n";
  const auto typo = error_of([&] { read_user_options({"cfg=" + (dir / "typo.yaml").string()}, table); });
  CHECK(typo.find("did you mean 'momentum'") != std::string::npos);
  CHECK(typo.find("typo.yaml") != std::string::npos);
  std::ofstream(dir / "broken.yaml") << "epochs: [1, 2\n";
  CHECK(error_of([&] { read_user_options({"cfg=" + (dir / "broken.yaml").string()}, table); })
            .find("cannot parse") != std::string::npos);
  std::ofstream(dir / "badvalue.yaml") << "batch: lots\n";
  CHECK(error_of([&] { read_user_options({"cfg=" + (dir / "badvalue.yaml").string()}, table); })
            .find("an integer") != std::string::npos);
}

TEST_CASE("closest_match tolerates typos but not unrelated words") {
  const std::vector<std::string> keys = {"epochs", "batch", "imgsz", "momentum"};
  CHECK(closest_match("epcohs", keys) == std::optional<std::string>("epochs"));
  CHECK(closest_match("imgsize", keys) == std::optional<std::string>("imgsz"));
  CHECK_FALSE(closest_match("weights", keys).has_value());
}
