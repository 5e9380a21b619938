// Every option of every command, declared once: name, type, default, help, the valid range
// and, for train's options, the TrainConfig member it fills. The command tables below, `help`,
// docs/cli.md (tests/unit/config/test_cli_doc.cpp keeps it in step), TrainConfig's defaults and
// make_train_config all come from this file; nothing else spells a default or a help line.
// Global defaults follow LibreYOLO's TrainConfig so that a LibreYOLO user's muscle memory
// carries over; families override them with their recipe.

#include "libreyolo/core/config/option_table.hpp"
#include "libreyolo/core/config/train_option_list.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "option_checks.hpp"

namespace libreyolo::core::config {
namespace {

using T = OptionType;
using C = config::TrainConfig;
using namespace checks;
constexpr bool kVal = true;  // also a `val` option
constexpr long long kMany = 1 << 20;

// fused_kernels' help names today's measured kernels from the SDK's own list, so that it cannot
// fall behind the default as a written list did.
std::string fused_kernels_help() {
  std::string measured;
  for (const auto& name : sdk::measured_faster_kernels()) measured += (measured.empty() ? "" : ", ") + name;
  return "measured: the fused kernels measured faster on the GPU and equal within tolerance (" + measured +
         "; docs/fused-kernels.md says why each); auto: every one where built and the inputs suit it; a kernel's "
         "name (an unknown one is refused with the list) or names joined by +: those alone; measured+names: the "
         "measured ones and those; measured-names (joined by -): the measured ones but those; off: composed "
         "PyTorch ops, per-layer casts and host matching";
}

// Shared with val: what every command that loads a model and data understands.
std::vector<TrainOption> shared_options() {
  return {
      {{"model", T::text, "", "family + size (yolo9s, yolox-s) or a .pt file; a bare LibreYOLO name (LibreYOLO9s.pt) is found or downloaded"}, &C::model, {}, kVal},
      {{"task", T::text, "detect", "detect (the only task here; LibreYOLO's others are refused)"}, &C::task,
       detect_task_only(), kVal},
      {{"data", T::text, "", "data.yaml path or a dataset name (coco128)"}, &C::data,
       required("train needs a dataset", "data= is not set",
                "pass data=path/to/data.yaml or a dataset name such as data=coco128"), kVal},
      {{"imgsz", T::integer, "640", "input size in pixels (square); families may default per size"}, &C::imgsz,
       both(integer_from(32, 8192), multiple_of(32, "a multiple of 32 (the network stride)")), kVal},
      {{"batch", T::integer, "16", "global batch size (split across GPUs); -1 = autobatch"}, &C::batch,
       both(integer_from(-1, kMany), not_zero("a positive batch, or -1 for autobatch")), kVal},
      {{"device", T::text, "auto", "auto, cpu, 0, cuda:0, or a GPU list 0,1 / [0, 1]"}, &C::device, {}, kVal},
      {{"workers", T::integer, "4", "data loader threads"}, &C::workers, integer_from(0, 1024), kVal},
      // LibreYOLO's cache=true is its ram cache.
      {{"cache", T::choice, "false", "keep decoded images in ram or on disk", {"false", "ram", "disk"},
        {{"true", "ram"}, {"yes", "ram"}, {"on", "ram"}, {"1", "ram"}, {"no", "false"}, {"off", "false"}, {"0", "false"}}},
       &C::cache, {}, kVal},
      {{"amp", T::boolean, "true", "mixed precision (family default)"}, &C::amp, {}, kVal},
      {{"amp_dtype", T::choice, "float16", "autocast dtype", {"float16", "bfloat16"}}, &C::amp_dtype, {}, kVal},
      {{"project", T::text, "runs/train", "parent folder of run folders"}, &C::project, {}, kVal},
      {{"name", T::text, "exp", "run folder name (exp, exp2, ... unless exist_ok)"}, &C::name, {}, kVal},
      {{"exist_ok", T::boolean, "false", "reuse an existing run folder"}, &C::exist_ok, {}, kVal},
      {{"seed", T::integer, "0", "random seed (data order, augmentation, initialisation)"}, &C::seed, {}, kVal},
      {{"verbose", T::boolean, "false", "debug-level console logging"}, &C::verbose, {}, kVal},
      {{"cfg", T::text, "", "YAML file of option defaults (command line wins)"}, &C::cfg, {}, kVal},
      {{"plugin_dir", T::text, "", "extra folder to search for family plugins"}, &C::plugin_dir, {}, kVal},
  };
}

std::vector<TrainOption> training_only_options() {
  return {
      {{"pretrained", T::boolean, "true",
        "start from model=FILE.pt's weights; false is refused for a .pt (LibreYOLO would ignore it: use model=FAMILYSIZE)"},
       &C::pretrained},
      {{"freeze", T::text, "",
        "stop layers training: N = the family's first N freeze groups (`families NAME` lists them), [0, 2] = those "
        "groups, NAME = matching modules (backbone, backbone.stem.*)"},
       &C::freeze, freeze_syntax()},
      {{"epochs", T::integer, "300", "training epochs"}, &C::epochs, integer_from(1, kMany)},
      {{"optimizer", T::choice, "sgd", "optimizer", {"sgd", "adam", "adamw"}}, &C::optimizer},
      {{"lr0", T::number, "0.01", "initial learning rate"}, &C::lr0, number_from(0, 10)},
      {{"momentum", T::number, "0.937", "SGD momentum / Adam(W) beta1"}, &C::momentum, number_from(0, 1)},
      {{"weight_decay", T::number, "0.0005", "weight decay (not on BatchNorm or biases)"}, &C::weight_decay, number_from(0, 1)},
      {{"nesterov", T::boolean, "true", "Nesterov momentum for SGD"}, &C::nesterov},
      {{"scheduler", T::choice, "yoloxwarmcos", "learning-rate schedule", {"yoloxwarmcos", "linear", "cosine", "flatcosine", "constant"},
        {{"flat_cosine", "flatcosine"}}},  // LibreYOLO's D-FINE/DEIM configs spell it flat_cosine
       &C::scheduler},
      {{"warmup_epochs", T::integer, "5", "warm-up epochs"}, &C::warmup_epochs, integer_from(0, kMany)},
      {{"warmup_lr_start", T::number, "0", "learning rate at the start of warm-up"}, &C::warmup_lr_start, number_from(0, 10)},
      {{"no_aug_epochs", T::integer, "15", "final epochs without mosaic/mixup"}, &C::no_aug_epochs, integer_from(0, kMany)},
      {{"aug_stop_epoch_ratio", T::number, "1.0",
        "fraction of the epochs after which a family's strong augmentation stops (families that schedule it)"},
       &C::aug_stop_epoch_ratio, probability()},
      {{"min_lr_ratio", T::number, "0.05", "final learning rate as a fraction of lr0"}, &C::min_lr_ratio, number_from(0, 1)},
      {{"mosaic_prob", T::number, "1.0", "probability of a mosaic sample"}, &C::mosaic_prob, probability()},
      {{"mixup_prob", T::number, "1.0", "probability of mixup on a mosaic sample"}, &C::mixup_prob, probability()},
      {{"hsv_prob", T::number, "1.0", "probability of HSV jitter"}, &C::hsv_prob, probability()},
      {{"flip_prob", T::number, "0.5", "probability of a horizontal flip"}, &C::flip_prob, probability()},
      {{"degrees", T::number, "10.0", "random rotation range in degrees"}, &C::degrees, number_from(0, 180)},
      {{"translate", T::number, "0.1", "random translation as a fraction of the size"}, &C::translate, number_from(0, 1)},
      {{"mosaic_scale", T::range, "0.1,2.0", "random scale range of the mosaic affine"}, &C::mosaic_scale, positive_scales()},
      {{"mixup_scale", T::range, "0.5,1.5", "random scale range of the mixup image"}, &C::mixup_scale, positive_scales()},
      {{"shear", T::number, "2.0", "random shear range in degrees"}, &C::shear, number_from(0, 90)},
      {{"ema", T::boolean, "true", "keep an exponential moving average of the weights"}, &C::ema},
      {{"ema_decay", T::number, "0.9998", "EMA decay (ramped up over the first steps)"}, &C::ema_decay, number_from(0, 1)},
      {{"nbs", T::integer, "0", "nominal batch for gradient accumulation; 0 = off"}, &C::nbs, integer_from(0, kMany)},
      {{"clip_grad", T::number, "0", "max gradient norm; 0 = no clipping"}, &C::clip_grad, number_from(0, 1e6)},
      {{"multi_scale", T::boolean, "false", "random input size per batch"}, &C::multi_scale},
      {{"cuda_graph", T::boolean, "false", "capture the network into a CUDA graph"}, &C::cuda_graph},
      {{"fused_kernels", T::text, "measured", fused_kernels_help()},
       &C::fused_kernels, fused_kernel_names()},
      {{"cudnn_benchmark_limit", T::integer, "10",
        "convolution algorithms cuDNN's benchmark times per new shape (PyTorch's cudnn.benchmark_limit; 0 = every "
        "one: a slower first step, maybe faster convolutions)"},
       &C::cudnn_benchmark_limit, integer_from(0, 100000)},
      {{"profile", T::boolean, "false", "profile a window of steps and print a verdict"}, &C::profile},
      {{"profile_skip", T::integer, "5", "profile=true: steps discarded before the window"}, &C::profile_skip,
       integer_from(0, kMany)},
      // Two halves: unsynchronised, synchronised.
      {{"profile_steps", T::integer, "20", "profile=true: steps measured (half unsynchronised, half synchronised)"},
       &C::profile_steps, integer_from(2, 100000)},
      {{"sync_bn", T::boolean, "false", "synchronized BatchNorm under multi-GPU (family default)"}, &C::sync_bn},
      {{"ddp_timeout", T::integer, "10800", "multi-GPU: seconds a collective may wait for the other ranks before the run fails"},
       &C::ddp_timeout, at_least(1, "at least 1 second")},
      {{"save_period", T::integer, "10", "save a checkpoint every N epochs; 0 = only last/best"}, &C::save_period,
       integer_from(0, kMany)},
      {{"val", T::boolean, "true", "validate during training (false: never, not even at the end; no best.pt)"}, &C::val},
      {{"eval_interval", T::integer, "10", "validate every N epochs (and at the end)"}, &C::eval_interval,
       integer_from(1, kMany)},
      {{"plots", T::boolean, "true", "save plots of the run (LibreYOLO: save_plots)"}, &C::plots, {}, kVal},
      {{"patience", T::integer, "50", "stop after N epochs without improvement; 0 = never"}, &C::patience,
       integer_from(0, kMany)},
      {{"resume", T::text, "false",
        "true (the run in project=/name=, or the latest) or a run's weights/last.pt: continue it with its own options"},
       &C::resume},
      {{"log_interval", T::integer, "10", "read and print loss components every N steps"}, &C::log_interval,
       integer_from(1, kMany)},
  };
}

std::vector<TrainOption> declare_train_options() {
  auto options = shared_options();
  for (auto& option : training_only_options()) options.push_back(std::move(option));
  return options;
}

// val writes its run folders elsewhere; every other shared option keeps train's default.
const OptionSpec kValProject{"project", T::text, "runs/val", "parent folder of run folders"};

std::vector<OptionSpec> val_own_options() {
  return {{"conf", T::number, "0.001", "confidence threshold before NMS"},
          {"iou", T::number, "0.6", "NMS IoU threshold"},
          {"max_det", T::integer, "300", "detections kept per image"},
          {"split", T::choice, "val", "dataset split to evaluate", {"val", "test", "train"}}};
}

// predict: what Ultralytics' and LibreYOLO's predict default to (conf 0.25, iou 0.45).
const OptionSpec kPredictProject{"project", T::text, "runs/predict", "parent folder of run folders"};
// The shared options predict understands too; a dataset, a batch and the loader's are not among them.
const char* const kPredictShared[] = {"model", "imgsz", "device", "amp", "amp_dtype", "project", "name",
                                      "exist_ok", "verbose", "cfg", "plugin_dir"};

std::vector<OptionSpec> predict_own_options() {
  return {{"source", T::text, "", "an image file, a folder of images or a quoted glob ('images/*.jpg')"},
          {"conf", T::number, "0.25", "confidence threshold"},
          {"iou", T::number, "0.45", "NMS IoU threshold (families without NMS ignore it)"},
          {"max_det", T::integer, "300", "detections kept per image"},
          {"classes", T::text, "", "keep only these classes: ids or names (0,2 or [0, 2] or person,dog)"},
          {"save", T::boolean, "true", "write each image with its boxes drawn"},
          {"save_txt", T::boolean, "false", "write labels/NAME.txt per image: class cx cy w h conf (normalised)"},
          {"save_json", T::boolean, "false", "write predictions.json: every image's boxes in pixels"}};
}

std::vector<OptionSpec> bench_own_options() {
  return {{"steps", T::integer, "100", "batches (bench data) or steps (bench step, capture, fused) to time"},
          {"warmup", T::integer, "10", "batches or steps run before timing starts"},
          {"json", T::text, "", "write the result as JSON to this file"},
          {"op_callers", T::text, "",
           "bench step: then 3 eager steps recording which operators call this one (e.g. aten::copy_) and with "
           "what input, per step"}};
}

std::vector<OptionSpec> profile_run_own_options() {
  return {{"weights", T::text, "", "LibreYOLO .pt to start from (names its family and size)"},
          {"size", T::text, "", "model size, with --model FAMILY"},
          {"repeat", T::integer, "1", "measure N windows: prof_1..prof_N and profile_repeat.json"}};
}

OptionTable with(OptionTable table, const std::vector<OptionSpec>& own) {
  for (const auto& spec : own) table.add(spec);
  return table;
}

}  // namespace

const std::vector<TrainOption>& train_option_list() {
  static const std::vector<TrainOption> list = declare_train_options();
  return list;
}

OptionTable train_options() {
  OptionTable table;
  for (const auto& option : train_option_list()) table.add(option.spec);
  // LibreYOLO's CLI names (cli/aliases.py: mosaic, mixup; train.py: save_plots; D-FINE's
  // clip_max_norm), then ours. `scale` is not LibreYOLO's (it has none); Ultralytics' scale is a
  // gain, not a range, and is refused as such (docs/cli.md). `close_mosaic` is Ultralytics' name for
  // the same final epochs without mosaic and mixup.
  table.add_alias("mosaic", "mosaic_prob")
      .add_alias("mixup", "mixup_prob")
      .add_alias("save_plots", "plots")
      .add_alias("clip_max_norm", "clip_grad")
      .add_alias("scale", "mosaic_scale")
      .add_alias("lr", "lr0")
      .add_alias("close_mosaic", "no_aug_epochs");
  return table;
}

OptionTable bench_options() { return with(train_options(), bench_own_options()); }

OptionTable profile_run_options() { return with(train_options(), profile_run_own_options()); }

OptionTable predict_options() {
  OptionTable table;
  for (const char* name : kPredictShared) {
    const auto* option = find_train_option(name);
    table.add(option->spec.name == kPredictProject.name ? kPredictProject : option->spec);
  }
  return with(std::move(table), predict_own_options());
}

OptionTable val_options() {
  OptionTable table;
  for (const auto& option : train_option_list()) {
    if (option.shared_with_val) table.add(option.spec.name == kValProject.name ? kValProject : option.spec);
  }
  table.add_alias("save_plots", "plots");  // the help line names it, so val takes it as train does
  return with(std::move(table), val_own_options());
}

}  // namespace libreyolo::core::config
