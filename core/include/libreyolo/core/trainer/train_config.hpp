#pragma once
// The resolved `train` options as one typed struct, checked for sense (ranges, multiples of
// 32, probabilities in [0, 1]) once, before any work starts. docs/cli.md documents each field.

#include <cstdint>
#include <string>

#include "libreyolo/core/config/resolved_options.hpp"
#include "libreyolo/sdk/recipe.hpp"

namespace libreyolo::core::trainer {

struct TrainConfig {
  std::string model, data;
  int imgsz = 640, batch = 16, epochs = 300, workers = 4;
  std::string device = "auto", cache = "false";
  // Optimization.
  std::string optimizer = "sgd", scheduler = "yoloxwarmcos";
  double lr0 = 0.01, momentum = 0.937, weight_decay = 5e-4, warmup_lr_start = 0, min_lr_ratio = 0.05;
  bool nesterov = true;
  int warmup_epochs = 5, no_aug_epochs = 15, nbs = 0;
  double clip_grad = 0;
  // Augmentation.
  double mosaic_prob = 1, mixup_prob = 1, hsv_prob = 1, flip_prob = 0.5, degrees = 10, translate = 0.1, shear = 2;
  sdk::Range mosaic_scale{0.1, 2.0}, mixup_scale{0.5, 1.5};
  bool multi_scale = false;
  // Weights, precision, speed features.
  bool ema = true, amp = true, cuda_graph = false, profile = false, sync_bn = false;
  double ema_decay = 0.9998;
  std::string amp_dtype = "float16";
  int profile_skip = 5, profile_steps = 20;  // profile=true: steps discarded, then measured
  int ddp_timeout = 10800;                   // seconds: multi-GPU collectives wait this long at most
  // Run folder, checkpoints, evaluation, logging.
  std::string project = "runs/train", name = "exp";
  bool exist_ok = false, resume = false, verbose = false;
  int save_period = 10, eval_interval = 10, patience = 50, log_interval = 10;
  std::int64_t seed = 0;
};

// Throws core::Error naming the option, its value and the valid range.
TrainConfig make_train_config(const config::ResolvedOptions& options);

}  // namespace libreyolo::core::trainer
