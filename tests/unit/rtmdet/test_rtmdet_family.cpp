// The RTMDet plugin as the host loads it: what it declares (normalised BGR input, multi-label
// NMS with a per-level nms_pre, the stem's size signature, policy, LibreYOLO's RTMDetConfig with
// mmdetection's no-decay groups), a one-epoch CPU training of rtmdet-t on coco16 through the real
// trainer, and the checkpoint it writes loaded back into a fresh detector.
#include "../torch_doctest.hpp"

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/checkpoint/state_dict.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/optim/param_group_rules.hpp"
#include "libreyolo/core/optim/unique_parameters.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/plugins/size_from_weights.hpp"
#include "libreyolo/core/trainer/trainer.hpp"
#include "libreyolo/sdk/sdk.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../quiet_log.hpp"
#include "../temp_dir.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo;

namespace {

const core::plugins::LoadedFamily& rtmdet_family() {
  static const auto registry = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  return registry.require("rtmdet");
}

}  // namespace

TEST_CASE("rtmdet plugin: input format, post-processing, size signature and policy") {
  const auto& family = rtmdet_family();
  CHECK(family.info.sizes == std::vector<std::string>{"t", "s", "m", "l", "x"});
  // mmdetection's data_preprocessor: BGR 0-255, mean/std per channel in BGR order.
  CHECK(family.info.input.channel_order == sdk::InputFormat::ChannelOrder::bgr);
  CHECK(family.info.input.scale == 1.0f);
  CHECK(family.info.input.mean[0] == doctest::Approx(103.53));
  CHECK(family.info.input.mean[2] == doctest::Approx(123.675));
  CHECK(family.info.input.std[0] == doctest::Approx(57.375));
  CHECK(family.info.input.std[2] == doctest::Approx(58.395));
  CHECK(family.info.multi_label_nms);
  CHECK(family.info.nms_candidates == 90000);  // 30000 per level
  CHECK(family.info.size_signature.key == "backbone.stem.0.conv.weight");
  CHECK(family.info.size_signature.sizes.at(12) == "t");
  CHECK(family.info.size_signature.sizes.at(40) == "x");
  CHECK(family.policy.amp);
  CHECK(family.policy.sync_bn);
  CHECK(family.policy.capture == sdk::CaptureRegion::network);
  CHECK(family.policy.supports_spawn);
}

TEST_CASE("rtmdet plugin: LibreYOLO's RTMDetConfig as option defaults, mosaic closing 20 epochs before the end") {
  const auto& family = rtmdet_family();
  std::map<std::string, std::string> defaults;
  for (const auto& [key, value] : core::plugins::family_option_defaults(family, "s", core::config::train_options()))
    defaults[key] = core::config::format_option_value(value);
  const std::map<std::string, std::string> expected = {
      {"epochs", "300"},          {"batch", "16"},           {"optimizer", "adamw"},
      {"lr0", "0.004"},           {"weight_decay", "0.05"},  {"scheduler", "yoloxwarmcos"},
      {"warmup_epochs", "1"},     {"warmup_lr_start", "4e-08"}, {"no_aug_epochs", "20"},
      {"min_lr_ratio", "0.05"},   {"ema_decay", "0.9998"},   {"mosaic_prob", "1"},
      {"mixup_prob", "1"},        {"degrees", "0"},          {"translate", "0"},
      {"shear", "0"},             {"mosaic_scale", "0.1,2"}, {"flip_prob", "0.5"}};
  for (const auto& [key, value] : expected) {
    CAPTURE(key);
    REQUIRE(defaults.count(key) == 1);
    CHECK(defaults.at(key) == value);
  }
  const auto recipe = family.family->recipe("s");
  REQUIRE(recipe.schedule.size() == 1);
  CHECK(recipe.schedule[0].augmentation == "no_mosaic");
  CHECK_FALSE(recipe.schedule[0].changes_captured_region);
}

TEST_CASE("rtmdet plugin: BatchNorm parameters and every bias without weight decay (mmdetection's paramwise_cfg)") {
  const auto& family = rtmdet_family();
  sdk::ModelSpec spec;
  spec.size = "t";
  auto detector = family.family->create_detector(spec);
  const auto split = core::optim::split_by_rules(*detector, family.family->recipe("t").param_groups, 0.05);
  REQUIRE(split.groups.size() == 2);
  CHECK(split.groups[0].name == "no_decay");
  CHECK(split.groups[0].weight_decay == 0.0);
  CHECK(split.groups[1].name == "default");
  CHECK(split.groups[1].weight_decay == 0.05);
  std::size_t grouped = 0;
  for (const auto& group : split.groups) grouped += group.params.size();
  // Each shared head convolution once (LibTorch lists it at all three levels).
  CHECK(grouped == core::optim::unique_parameters(*detector).size());
  for (const auto& p : split.groups[1].params) CHECK(p.dim() == 4);  // only convolution weights decay
}

TEST_CASE("rtmdet plugin: one CPU epoch of rtmdet-t on coco16 through the trainer, its checkpoint loads back") {
  const auto& family = rtmdet_family();
  test::TempDir temp;
  const auto table = core::config::train_options();
  const std::string data = std::string(libreyolo::test_paths::source_dir()) + "/datasets/coco16/data.yaml";
  const auto user = core::config::read_user_options(
      {"model=rtmdett", "data=" + data, "epochs=1", "imgsz=64", "batch=8", "device=cpu", "workers=1",
       "project=" + temp.path().string(), "name=run", "eval_interval=1"},
      table);
  core::trainer::TrainRequest request;
  const auto options = core::config::resolve_options(table, user, "family rtmdet's recipe",
                                                     core::plugins::family_option_defaults(family, "t", table));
  request.config = core::config::make_train_config(options);
  request.sources = core::config::OptionSources(options);
  request.family = &family;
  request.size = "t";
  const auto outcome = [&] {
    test::QuietLog quiet;
    return core::trainer::train(request);
  }();
  REQUIRE(outcome.epochs_completed == 1);
  const auto& record = outcome.epochs.at(0);
  CHECK(record.validated);
  REQUIRE(record.train_losses.size() == 2);
  CHECK(record.train_losses[0].first == "cls");
  CHECK(record.train_losses[1].first == "bbox");
  for (const auto& [name, value] : record.train_losses) {
    CAPTURE(name);
    CHECK(std::isfinite(value));
    CHECK(value > 0.0);
  }

  const auto last = outcome.run.root / "weights" / "last.pt";
  REQUIRE(std::filesystem::exists(last));
  const auto saved = core::checkpoint::load_checkpoint(last);
  CHECK(saved.metadata.model_family == "rtmdet");
  CHECK(saved.metadata.size == "t");
  CHECK(core::plugins::size_from_weights(family.info, saved, last.string()) == "t");
  CHECK(saved.model.size() == 476);  // LibreRTMDetModel("t").state_dict(): shared convs at every level
  sdk::ModelSpec spec;
  spec.size = "t";
  spec.num_classes = static_cast<int>(saved.metadata.nc);
  auto fresh = family.family->create_detector(spec);
  core::checkpoint::load_state_dict_into(*fresh, saved.model, /*strict=*/true, last.string());
  const auto reloaded = core::checkpoint::state_dict_of(*fresh);
  for (const auto& item : saved.model) {
    CAPTURE(item.key());
    CHECK(torch::equal(reloaded[item.key()], item.value()));
  }
}
