// The one option list (core/src/config/train_options.cpp): every table, TrainConfig's defaults
// and its members come from it, so none of them can drift from another.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "libreyolo/core/config/option_report.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/train_option_list.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/error.hpp"
#include "libreyolo/core/config/train_config.hpp"

using namespace libreyolo::core;
using namespace libreyolo::core::config;
using config::TrainConfig;

namespace {

bool same_spec(const OptionSpec& a, const OptionSpec& b) {
  return a.name == b.name && a.type == b.type && a.default_value == b.default_value && a.help == b.help &&
         a.choices == b.choices;
}

std::vector<std::string> names_of(const OptionTable& table) {
  std::vector<std::string> names;
  for (const auto& spec : table.specs()) names.push_back(spec.name);
  return names;
}

// The type a member's value reads back as must be the one its option parses to.
bool value_has_type(const OptionValue& value, OptionType type) {
  switch (type) {
    case OptionType::boolean: return std::holds_alternative<bool>(value);
    case OptionType::integer: return std::holds_alternative<long long>(value);
    case OptionType::number: return std::holds_alternative<double>(value);
    case OptionType::text:
    case OptionType::choice: return std::holds_alternative<std::string>(value);
    case OptionType::range: return std::holds_alternative<libreyolo::sdk::Range>(value);
  }
  return false;
}

// The member an option fills, in `config`.
const void* address_of(const TrainConfig& config, const TrainField& field) {
  return std::visit([&](auto member) -> const void* { return &(config.*member); }, field);
}

}  // namespace

TEST_CASE("option list: the train table is the list, in order, with the same specs") {
  const auto table = train_options();
  const auto& list = train_option_list();
  REQUIRE(table.specs().size() == list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    CAPTURE(list[i].spec.name);
    CHECK(same_spec(table.specs()[i], list[i].spec));
    CHECK(find_train_option(list[i].spec.name) == &list[i]);
  }
  for (const auto& spec : table.specs()) {
    CAPTURE(spec.name);
    CHECK(find_train_option(spec.name) != nullptr);  // every option of train fills a TrainConfig member
  }
  CHECK(table.find("lr")->name == "lr0");
  CHECK(table.find("scale")->name == "mosaic_scale");
  CHECK(table.find("close_mosaic")->name == "no_aug_epochs");
}

TEST_CASE("option list: bench and profile run are train plus their own, val shares train's common options") {
  const auto train = names_of(train_options());
  auto plus = [&](std::vector<std::string> own) {
    auto names = train;
    names.insert(names.end(), own.begin(), own.end());
    return names;
  };
  CHECK(names_of(bench_options()) == plus({"steps", "warmup", "json", "op_callers"}));
  CHECK(names_of(profile_run_options()) == plus({"weights", "size", "repeat"}));

  const auto val = val_options();
  std::vector<std::string> shared;
  for (const auto& option : train_option_list()) {
    if (option.shared_with_val) shared.push_back(option.spec.name);
  }
  auto expected = shared;
  for (const char* own : {"conf", "iou", "max_det", "split"}) expected.push_back(own);
  CHECK(names_of(val) == expected);
  for (const auto& name : shared) {
    CAPTURE(name);
    const auto& spec = *val.find(name);
    if (name == "project") {
      CHECK(spec.default_value == "runs/val");  // val's own folder; train's is runs/train
    } else {
      CHECK(same_spec(spec, find_train_option(name)->spec));
    }
  }
}

TEST_CASE("option list: each option's member has the option's type, and no two options share a member") {
  const TrainConfig config;
  std::set<const void*> members;
  for (const auto& option : train_option_list()) {
    CAPTURE(option.spec.name);
    CHECK(value_has_type(read_field(config, option.field), option.spec.type));
    CHECK(members.insert(address_of(config, option.field)).second);
  }
}

TEST_CASE("option list: a default-constructed TrainConfig holds the table's defaults") {
  const TrainConfig config;
  const auto resolved = config::make_train_config(resolve_options(train_options(), read_user_options({"data=d"}, train_options()),
                                                          "no family", {}));
  for (const auto& option : train_option_list()) {
    CAPTURE(option.spec.name);
    const auto expected = parse_option_value(option.spec, option.spec.default_value, "test");
    CHECK(format_option_value(read_field(config, option.field)) == format_option_value(expected));
    if (option.spec.name != "data") {
      CHECK(format_option_value(read_field(resolved, option.field)) == format_option_value(expected));
    }
  }
  CHECK(config.user_set.empty());
  // Spot checks against docs/cli.md's numbers, in case a parse and a read were both wrong.
  CHECK(config.imgsz == 640);
  CHECK(config.batch == 16);
  CHECK(config.weight_decay == 0.0005);
  CHECK(config.mosaic_scale.high == 2.0);
  CHECK(config.project == "runs/train");
  CHECK(config.scheduler == "yoloxwarmcos");
}

TEST_CASE("option list: every TrainConfig member but user_set is an option's") {
  // A structured binding must name every data member, so this declaration stops compiling when
  // a member is added to or removed from TrainConfig. Then add or remove the member's name here
  // and, unless it is not an option (like user_set), its line in train_options.cpp: the check
  // below fails for a member no option fills.
  const TrainConfig config;
  const auto& [model, task, data, pretrained, freeze, imgsz, batch, epochs, workers, device, cache, optimizer, scheduler, lr0, momentum,
               weight_decay, warmup_lr_start, min_lr_ratio, nesterov, warmup_epochs, no_aug_epochs, nbs,
               aug_stop_epoch_ratio, clip_grad,
               mosaic_prob, mixup_prob, hsv_prob, flip_prob, degrees, translate, shear, mosaic_scale, mixup_scale,
               multi_scale, ema, amp, cuda_graph, profile, sync_bn, ema_decay, amp_dtype, fused_kernels, cudnn_benchmark_limit,
               profile_skip, profile_steps,
               ddp_timeout, project, name, exist_ok, verbose, resume, val, plots, save_period, eval_interval, patience,
               log_interval, seed, cfg, plugin_dir, user_set] = config;
  const std::set<const void*> members = {
      &model, &task, &data, &pretrained, &freeze, &imgsz, &batch, &epochs, &workers, &device, &cache, &optimizer, &scheduler, &lr0, &momentum,
      &weight_decay, &warmup_lr_start, &min_lr_ratio, &nesterov, &warmup_epochs, &no_aug_epochs, &nbs,
      &aug_stop_epoch_ratio, &clip_grad,
      &mosaic_prob, &mixup_prob, &hsv_prob, &flip_prob, &degrees, &translate, &shear, &mosaic_scale, &mixup_scale,
      &multi_scale, &ema, &amp, &cuda_graph, &profile, &sync_bn, &ema_decay, &amp_dtype, &fused_kernels, &cudnn_benchmark_limit, &profile_skip,
      &profile_steps, &ddp_timeout, &project, &name, &exist_ok, &resume, &verbose, &val, &plots, &save_period, &eval_interval,
      &patience, &log_interval, &seed, &cfg, &plugin_dir};
  std::set<const void*> bound;
  for (const auto& option : train_option_list()) {
    bound.insert(address_of(config, option.field));
  }
  CHECK(bound == members);  // user_set, left out above, is the one member that is not an option
  CHECK(members.count(&user_set) == 0);
}

TEST_CASE("option list: checks run in table order on the typed config, with make_train_config's messages") {
  auto config = TrainConfig();
  config.data = "d";
  CHECK_NOTHROW(config::check_train_config(config));
  config.ddp_timeout = 0;
  CHECK_THROWS_WITH_AS(config::check_train_config(config), doctest::Contains("ddp_timeout=0 is out of range"), Error);
  config.mixup_scale = {0, 1};  // earlier in the table than ddp_timeout
  CHECK_THROWS_WITH_AS(config::check_train_config(config), doctest::Contains("expected positive scales"), Error);
  // An integer too large for its int member is reported with the user's value, not a wrapped one.
  const auto table = train_options();
  CHECK_THROWS_WITH_AS(config::make_train_config(resolve_options(
                           table, read_user_options({"data=d", "epochs=99999999999"}, table), "no family", {})),
                       doctest::Contains("option epochs=99999999999 is out of range"), Error);
}

TEST_CASE("option report: the values of a config with where each came from, unset text options left out") {
  auto config = TrainConfig();
  config.data = "coco16";
  config.epochs = 3;
  OptionSources sources;
  sources.set("data", OptionSource::command_line);
  sources.set("epochs", OptionSource::cfg_file);
  const auto report = report_options(config, sources);
  auto find = [&](const std::string& name) {
    return std::find_if(report.begin(), report.end(), [&](const ReportedOption& r) { return r.name == name; });
  };
  REQUIRE(find("data") != report.end());
  CHECK(find("data")->value == "coco16");
  CHECK(find("data")->source == OptionSource::command_line);
  CHECK(find("epochs")->value == "3");
  CHECK(find("epochs")->source == OptionSource::cfg_file);
  CHECK(find("weight_decay")->value == "5e-04");  // format_option_value: the shortest exact text
  CHECK(find("weight_decay")->source == OptionSource::global_default);
  CHECK(find("model") == report.end());  // no default, nobody set it
  CHECK(find("cfg") == report.end());
  CHECK(report.size() == train_option_list().size() - 4);  // all but model, freeze, cfg, plugin_dir
}
