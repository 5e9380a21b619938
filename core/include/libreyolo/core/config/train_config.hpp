#pragma once
// The resolved `train` options as one typed struct, checked for sense (ranges, multiples of
// 32, probabilities in [0, 1]) once, by the command line, before any work starts; the trainer
// and everything it calls read this struct only. docs/cli.md documents each field.
//
// Each member but user_set is one option of the list in core/src/config/train_options.cpp,
// which holds its name, type, default, help and valid range (config/train_option_list.hpp).
// The constructor takes the defaults from there; the `{}` initialisers below are blanks, not
// defaults, so that there is one place to change a default.

#include <cstdint>
#include <set>
#include <string>

#include "libreyolo/sdk/recipe.hpp"

namespace libreyolo::core::config {
class ResolvedOptions;
}

namespace libreyolo::core::config {

struct TrainConfig {
  TrainConfig();  // every option at its built-in default

  std::string model, task, data;  // task: detect only (LibreYOLO's name, accepted for its users)
  bool pretrained{};               // false refused for model=FILE.pt (trainer.cpp says why)
  std::string freeze;              // LibreYOLO's freeze selectors, as typed (config/freeze_spec.hpp)
  int imgsz{}, batch{}, epochs{}, workers{};
  std::string device, cache;
  // Optimization.
  std::string optimizer, scheduler;
  double lr0{}, momentum{}, weight_decay{}, warmup_lr_start{}, min_lr_ratio{};
  bool nesterov{};
  int warmup_epochs{}, no_aug_epochs{}, nbs{};
  double aug_stop_epoch_ratio{};  // a family's scheduled stop of its strong augmentation
  double clip_grad{};
  // Augmentation.
  double mosaic_prob{}, mixup_prob{}, hsv_prob{}, flip_prob{}, degrees{}, translate{}, shear{};
  sdk::Range mosaic_scale{}, mixup_scale{};
  bool multi_scale{};
  // Weights, precision, speed features.
  bool ema{}, amp{}, cuda_graph{}, profile{}, sync_bn{};
  double ema_decay{};
  std::string amp_dtype;
  std::string fused_kernels;  // measured, off, auto or one kernel's name (sdk/fused_kernels.hpp)
  int cudnn_benchmark_limit{};  // convolution algorithms cuDNN's benchmark tries per shape; 0 = all
  int profile_skip{}, profile_steps{};  // profile=true: steps discarded, then measured
  int ddp_timeout{};                    // seconds: multi-GPU collectives wait this long at most
  // Run folder, checkpoints, evaluation, logging.
  std::string project, name;
  bool exist_ok{}, verbose{};
  std::string resume;  // false, true or a run's weights/last.pt (trainer/resume_target.hpp reads it)
  bool val{};    // validate during training at all (LibreYOLO's val=false: eval_interval 0)
  bool plots{};  // save the run's plots (alias save_plots)
  int save_period{}, eval_interval{}, patience{}, log_interval{};
  std::int64_t seed{};
  // Where the options and plugins came from (args.yaml records them).
  std::string cfg, plugin_dir;

  // Not an option: the names of the options that the cfg file or the command line set (a
  // command's own decisions, such as profile run's profile=true, count as its command line).
  // A family's declared settings give way to an option only when the user set it.
  std::set<std::string> user_set;

 private:
  struct Blank {};
  explicit TrainConfig(Blank) {}
  static const TrainConfig& built_in_defaults();
};

// The typed values of the resolved options and user_set, before the checks: for a command that
// decides some options itself first (profile run). Throws only for an integer that does not fit
// its field, with the option's own range message.
TrainConfig unchecked_train_config(const ResolvedOptions& options);

// Throws core::Error naming the first option (in table order) whose value is out of range, its
// value and the valid range.
void check_train_config(const TrainConfig& config);

// unchecked_train_config, then check_train_config: what every command but profile run uses.
TrainConfig make_train_config(const ResolvedOptions& options);

// The range checks of train's options, on those of `options` that a command shares with train
// (val and predict take imgsz, batch, workers, ... without building a TrainConfig).
void check_shared_train_options(const ResolvedOptions& options);

// val's and predict's post-processing: conf and iou fractions from 0 to 1, max_det at least 1.
void check_nms_options(const ResolvedOptions& options);

}  // namespace libreyolo::core::config
