// The YOLOX plugin as the host loads it: what it declares (input format, policy, LibreYOLO's
// recipe), and a two-epoch CPU training run through the real trainer on coco16, in which the
// L1 loss must be off in the augmented epoch and on in the final no-aug epoch.
#include "../torch_doctest.hpp"

#include "libreyolo/core/checkpoint/checkpoint_io.hpp"
#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/user_options.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/core/plugins/family_defaults.hpp"
#include "libreyolo/core/plugins/plugin_loader.hpp"
#include "libreyolo/core/trainer/trainer.hpp"
#include "libreyolo/sdk/sdk.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../quiet_log.hpp"
#include "../temp_dir.hpp"
#include "support/test_paths.hpp"

using namespace libreyolo;

namespace {

double loss_named(const core::trainer::EpochRecord& record, const std::string& name) {
  for (const auto& [key, value] : record.train_losses)
    if (key == name) return value;
  FAIL("no loss component " << name);
  return 0;
}

}  // namespace

TEST_CASE("yolox plugin: input format, policy and LibreYOLO's YOLOXConfig recipe") {
  const auto registry = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  const auto& family = registry.require("yolox");
  CHECK(family.info.sizes == std::vector<std::string>{"n", "t", "s", "m", "l", "x"});
  // BGR, 0-255 unscaled (LibreYOLO's preprocess_numpy: RGB -> BGR, no normalisation).
  CHECK(family.info.input.channel_order == sdk::InputFormat::ChannelOrder::bgr);
  CHECK(family.info.input.scale == 1.0f);
  CHECK(family.info.input.mean[0] == 0.0f);
  CHECK(family.info.input.std[2] == 1.0f);
  CHECK(family.info.default_imgsz.at("n") == 416);
  CHECK(family.info.default_imgsz.at("s") == 640);
  CHECK(family.policy.amp);
  CHECK(family.policy.sync_bn);
  CHECK(family.policy.capture == sdk::CaptureRegion::step);
  CHECK(family.policy.supports_spawn);

  std::map<std::string, std::string> defaults;
  for (const auto& [key, value] : core::plugins::family_option_defaults(family, "s", core::config::train_options()))
    defaults[key] = core::config::format_option_value(value);
  const std::map<std::string, std::string> expected = {
      {"optimizer", "sgd"},          {"lr0", "0.01"},          {"momentum", "0.9"},
      {"weight_decay", "5e-04"},     {"nesterov", "true"},     {"scheduler", "yoloxwarmcos"},
      {"warmup_epochs", "5"},        {"no_aug_epochs", "15"},  {"min_lr_ratio", "0.05"},
      {"mosaic_prob", "1"},          {"mixup_prob", "1"},      {"degrees", "10"},
      {"shear", "2"},                {"mosaic_scale", "0.1,2"}, {"ema_decay", "0.9998"}};
  for (const auto& [key, value] : expected) {
    CAPTURE(key);
    REQUIRE(defaults.count(key) == 1);
    CHECK(defaults.at(key) == value);
  }
}

TEST_CASE("yolox plugin: two CPU epochs on coco16 through the trainer, L1 on in the no-aug epoch") {
  const auto registry = core::plugins::load_plugins({libreyolo::test_paths::family_dir()});
  const auto& family = registry.require("yolox");
  test::TempDir temp;
  const auto table = core::config::train_options();
  const std::string data = std::string(libreyolo::test_paths::source_dir()) + "/datasets/coco16/data.yaml";
  const auto user = core::config::read_user_options(
      {"model=yoloxn", "data=" + data, "epochs=2", "no_aug_epochs=1", "warmup_epochs=1", "imgsz=64", "batch=8",
       "device=cpu", "workers=1", "project=" + temp.path().string(), "name=run", "eval_interval=1"},
      table);
  core::trainer::TrainRequest request;
  const auto options = core::config::resolve_options(table, user, "family yolox's recipe",
                                                     core::plugins::family_option_defaults(family, "n", table));
  request.config = core::config::make_train_config(options);
  request.sources = core::config::OptionSources(options);
  request.family = &family;
  request.size = "n";
  const auto outcome = [&] {
    test::QuietLog quiet;
    return core::trainer::train(request);
  }();

  REQUIRE(outcome.epochs_completed == 2);
  REQUIRE(outcome.epochs.size() == 2);
  // The recipe's schedule closes the mosaic at epochs - no_aug_epochs: epoch 1 augments, epoch 2
  // does not, and only then is the L1 term in the loss.
  CHECK(loss_named(outcome.epochs[0], "l1") == 0.0);
  CHECK(loss_named(outcome.epochs[1], "l1") > 0.0);
  for (const auto& record : outcome.epochs) {
    CHECK(record.validated);
    for (const auto& [name, value] : record.train_losses) CHECK(std::isfinite(value));
  }
  const auto best = outcome.run.root / "weights" / "best.pt";
  REQUIRE(std::filesystem::exists(best));
  const auto saved = core::checkpoint::load_checkpoint(best);
  CHECK(saved.metadata.model_family == "yolox");
  CHECK(saved.metadata.size == "n");
  CHECK(saved.model.contains("backbone.backbone.stem.conv.conv.weight"));
  CHECK(saved.model.contains("head.obj_preds.2.bias"));
  CHECK(saved.model.size() == 642);  // LibreYOLOXModel("n").state_dict()
}
