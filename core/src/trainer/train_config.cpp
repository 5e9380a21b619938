#include "libreyolo/core/trainer/train_config.hpp"

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::trainer {
namespace {

[[noreturn]] void out_of_range(const std::string& key, const std::string& value, const std::string& expected) {
  throw Error("option " + key + "=" + value + " is out of range", "expected " + expected,
              "pass a value in that range");
}

int int_in(const config::ResolvedOptions& o, const std::string& key, long long low, long long high) {
  const auto v = o.get_int(key);
  if (v < low || v > high) {
    out_of_range(key, std::to_string(v), "an integer from " + std::to_string(low) + " to " + std::to_string(high));
  }
  return static_cast<int>(v);
}

double number_in(const config::ResolvedOptions& o, const std::string& key, double low, double high) {
  const auto v = o.get_double(key);
  if (v < low || v > high) {
    out_of_range(key, config::format_option_value(v),
                 "a number from " + config::format_option_value(low) + " to " + config::format_option_value(high));
  }
  return v;
}

double probability(const config::ResolvedOptions& o, const std::string& key) { return number_in(o, key, 0, 1); }

}  // namespace

TrainConfig make_train_config(const config::ResolvedOptions& o) {
  TrainConfig c;
  c.model = o.get_text("model");
  c.data = o.get_text("data");
  if (c.data.empty()) {
    throw Error("train needs a dataset", "data= is not set",
                "pass data=path/to/data.yaml or a dataset name such as data=coco128");
  }
  c.imgsz = int_in(o, "imgsz", 32, 8192);
  if (c.imgsz % 32 != 0) out_of_range("imgsz", std::to_string(c.imgsz), "a multiple of 32 (the network stride)");
  c.batch = int_in(o, "batch", -1, 1 << 20);
  if (c.batch == 0) out_of_range("batch", "0", "a positive batch, or -1 for autobatch");
  c.epochs = int_in(o, "epochs", 1, 1 << 20);
  c.workers = int_in(o, "workers", 0, 1024);
  c.device = o.get_text("device");
  c.cache = o.get_text("cache");
  c.optimizer = o.get_text("optimizer");
  c.scheduler = o.get_text("scheduler");
  c.lr0 = number_in(o, "lr0", 0, 10);
  c.momentum = number_in(o, "momentum", 0, 1);
  c.weight_decay = number_in(o, "weight_decay", 0, 1);
  c.nesterov = o.get_bool("nesterov");
  c.warmup_epochs = int_in(o, "warmup_epochs", 0, 1 << 20);
  c.warmup_lr_start = number_in(o, "warmup_lr_start", 0, 10);
  c.no_aug_epochs = int_in(o, "no_aug_epochs", 0, 1 << 20);
  c.min_lr_ratio = number_in(o, "min_lr_ratio", 0, 1);
  c.nbs = int_in(o, "nbs", 0, 1 << 20);
  c.clip_grad = number_in(o, "clip_grad", 0, 1e6);
  c.mosaic_prob = probability(o, "mosaic_prob");
  c.mixup_prob = probability(o, "mixup_prob");
  c.hsv_prob = probability(o, "hsv_prob");
  c.flip_prob = probability(o, "flip_prob");
  c.degrees = number_in(o, "degrees", 0, 180);
  c.translate = number_in(o, "translate", 0, 1);
  c.shear = number_in(o, "shear", 0, 90);
  c.mosaic_scale = o.get_range("mosaic_scale");
  c.mixup_scale = o.get_range("mixup_scale");
  if (c.mosaic_scale.low <= 0) out_of_range("mosaic_scale", config::format_option_value(c.mosaic_scale), "positive scales");
  if (c.mixup_scale.low <= 0) out_of_range("mixup_scale", config::format_option_value(c.mixup_scale), "positive scales");
  c.multi_scale = o.get_bool("multi_scale");
  c.ema = o.get_bool("ema");
  c.ema_decay = number_in(o, "ema_decay", 0, 1);
  c.amp = o.get_bool("amp");
  c.amp_dtype = o.get_text("amp_dtype");
  c.cuda_graph = o.get_bool("cuda_graph");
  c.profile = o.get_bool("profile");
  c.profile_skip = int_in(o, "profile_skip", 0, 1 << 20);
  c.profile_steps = int_in(o, "profile_steps", 2, 100000);  // two halves: unsynchronised, synchronised
  c.sync_bn = o.get_bool("sync_bn");
  c.ddp_timeout = static_cast<int>(o.get_int("ddp_timeout"));
  if (c.ddp_timeout < 1) out_of_range("ddp_timeout", std::to_string(c.ddp_timeout), "at least 1 second");
  c.project = o.get_text("project");
  c.name = o.get_text("name");
  c.exist_ok = o.get_bool("exist_ok");
  c.resume = o.get_bool("resume");
  c.verbose = o.get_bool("verbose");
  c.save_period = int_in(o, "save_period", 0, 1 << 20);
  c.eval_interval = int_in(o, "eval_interval", 1, 1 << 20);
  c.patience = int_in(o, "patience", 0, 1 << 20);
  c.log_interval = int_in(o, "log_interval", 1, 1 << 20);
  c.seed = o.get_int("seed");
  return c;
}

}  // namespace libreyolo::core::trainer
