// The option tables of the commands. Global defaults follow LibreYOLO's TrainConfig so that
// a LibreYOLO user's muscle memory carries over; families override them with their recipe.
// docs/cli.md documents the same list: keep them in step.

#include "libreyolo/core/config/option_table.hpp"

namespace libreyolo::core::config {
namespace {

using T = OptionType;

OptionSpec opt(std::string name, OptionType type, std::string default_value, std::string help,
               std::vector<std::string> choices = {}) {
  return OptionSpec{std::move(name), type, std::move(default_value), std::move(help),
                    std::move(choices)};
}

// Options every command that loads a model and data understands.
void add_common(OptionTable& table, const std::string& project) {
  table.add(opt("model", T::text, "", "family + size (yolo9s, yolox-s) or a LibreYOLO .pt file"))
      .add(opt("data", T::text, "", "data.yaml path or a dataset name (coco128)"))
      .add(opt("imgsz", T::integer, "640", "input size in pixels (square); families may default per size"))
      .add(opt("batch", T::integer, "16", "global batch size (split across GPUs); -1 = autobatch"))
      .add(opt("device", T::text, "auto", "auto, cpu, 0, cuda:0, or a GPU list 0,1 / [0, 1]"))
      .add(opt("workers", T::integer, "4", "data loader threads"))
      .add(opt("cache", T::choice, "false", "keep decoded images in ram or on disk", {"false", "ram", "disk"}))
      .add(opt("amp", T::boolean, "true", "mixed precision (family default)"))
      .add(opt("amp_dtype", T::choice, "float16", "autocast dtype", {"float16", "bfloat16"}))
      .add(opt("project", T::text, project, "parent folder of run folders"))
      .add(opt("name", T::text, "exp", "run folder name (exp, exp2, ... unless exist_ok)"))
      .add(opt("exist_ok", T::boolean, "false", "reuse an existing run folder"))
      .add(opt("seed", T::integer, "0", "random seed (data order, augmentation, initialisation)"))
      .add(opt("verbose", T::boolean, "false", "debug-level console logging"))
      .add(opt("cfg", T::text, "", "YAML file of option defaults (command line wins)"))
      .add(opt("plugin_dir", T::text, "", "extra folder to search for family plugins"));
}

}  // namespace

OptionTable train_options() {
  OptionTable table;
  add_common(table, "runs/train");
  table
      .add(opt("epochs", T::integer, "300", "training epochs"))
      .add(opt("optimizer", T::choice, "sgd", "optimizer", {"sgd", "adamw"}))
      .add(opt("lr0", T::number, "0.01", "initial learning rate"))
      .add(opt("momentum", T::number, "0.937", "SGD momentum / AdamW beta1"))
      .add(opt("weight_decay", T::number, "0.0005", "weight decay (not on BatchNorm or biases)"))
      .add(opt("nesterov", T::boolean, "true", "Nesterov momentum for SGD"))
      .add(opt("scheduler", T::choice, "yoloxwarmcos", "learning-rate schedule",
               {"yoloxwarmcos", "linear", "cosine", "flatcosine"}))
      .add(opt("warmup_epochs", T::integer, "5", "warm-up epochs"))
      .add(opt("warmup_lr_start", T::number, "0", "learning rate at the start of warm-up"))
      .add(opt("no_aug_epochs", T::integer, "15", "final epochs without mosaic/mixup"))
      .add(opt("min_lr_ratio", T::number, "0.05", "final learning rate as a fraction of lr0"))
      .add(opt("mosaic_prob", T::number, "1.0", "probability of a mosaic sample"))
      .add(opt("mixup_prob", T::number, "1.0", "probability of mixup on a mosaic sample"))
      .add(opt("hsv_prob", T::number, "1.0", "probability of HSV jitter"))
      .add(opt("flip_prob", T::number, "0.5", "probability of a horizontal flip"))
      .add(opt("degrees", T::number, "10.0", "random rotation range in degrees"))
      .add(opt("translate", T::number, "0.1", "random translation as a fraction of the size"))
      .add(opt("mosaic_scale", T::range, "0.1,2.0", "random scale range of the mosaic affine"))
      .add(opt("mixup_scale", T::range, "0.5,1.5", "random scale range of the mixup image"))
      .add(opt("shear", T::number, "2.0", "random shear range in degrees"))
      .add(opt("ema", T::boolean, "true", "keep an exponential moving average of the weights"))
      .add(opt("ema_decay", T::number, "0.9998", "EMA decay (ramped up over the first steps)"))
      .add(opt("nbs", T::integer, "0", "nominal batch for gradient accumulation; 0 = off"))
      .add(opt("clip_grad", T::number, "0", "max gradient norm; 0 = no clipping"))
      .add(opt("multi_scale", T::boolean, "false", "random input size per batch"))
      .add(opt("cuda_graph", T::boolean, "false", "capture the network into a CUDA graph"))
      .add(opt("profile", T::boolean, "false", "profile a window of steps and print a verdict"))
      .add(opt("profile_skip", T::integer, "5", "profile=true: steps discarded before the window"))
      .add(opt("profile_steps", T::integer, "20", "profile=true: steps measured (half unsynchronised, half synchronised)"))
      .add(opt("sync_bn", T::boolean, "false", "synchronized BatchNorm under multi-GPU (family default)"))
      .add(opt("ddp_timeout", T::integer, "10800", "multi-GPU: seconds a collective may wait for the other ranks before the run fails"))
      .add(opt("save_period", T::integer, "10", "save a checkpoint every N epochs; 0 = only last/best"))
      .add(opt("eval_interval", T::integer, "10", "validate every N epochs (and at the end)"))
      .add(opt("patience", T::integer, "50", "stop after N epochs without improvement; 0 = never"))
      .add(opt("resume", T::boolean, "false", "continue the run in name= from weights/last.pt"))
      .add(opt("log_interval", T::integer, "10", "read and print loss components every N steps"))
      .add_alias("scale", "mosaic_scale")
      .add_alias("lr", "lr0");
  return table;
}

OptionTable bench_options() {
  OptionTable table = train_options();
  table.add(opt("steps", T::integer, "100", "batches (bench data) or steps (bench step, bench capture) to time"))
      .add(opt("warmup", T::integer, "10", "batches or steps run before timing starts"))
      .add(opt("json", T::text, "", "write the result as JSON to this file"));
  return table;
}

OptionTable val_options() {
  OptionTable table;
  add_common(table, "runs/val");
  table.add(opt("conf", T::number, "0.001", "confidence threshold before NMS"))
      .add(opt("iou", T::number, "0.6", "NMS IoU threshold"))
      .add(opt("max_det", T::integer, "300", "detections kept per image"))
      .add(opt("split", T::choice, "val", "dataset split to evaluate", {"val", "test", "train"}));
  return table;
}

}  // namespace libreyolo::core::config
