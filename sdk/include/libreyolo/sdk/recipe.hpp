#pragma once
// A family's training recipe, per size, as data:
//   - option defaults it trains best with (optional fields named as users type the options,
//     `lr0=0.02`; an unset field leaves the host's global default; precedence, lowest first:
//     global default < family policy and recipe < cfg= file < command line). for_each_field()
//     lists every one once; the host uses it to apply and to print the recipe;
//   - its augmentation pipelines (augmentation.hpp), what changes at which epoch
//     (epoch_schedule.hpp), the multi-scale sizes, its optimizer parameter groups and
//     frozen parameters (param_group_rules.hpp), and the groups freeze=N counts
//     (freeze_groups.hpp).

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "libreyolo/sdk/augmentation.hpp"
#include "libreyolo/sdk/epoch_schedule.hpp"
#include "libreyolo/sdk/freeze_groups.hpp"
#include "libreyolo/sdk/param_group_rules.hpp"
#include "libreyolo/sdk/range.hpp"

namespace libreyolo::sdk {

// Multi-scale training (multi_scale=true): every batch is resized on the device to one size
// drawn from `sizes` (multiples of 32; a size listed twice is drawn twice as often). Empty: the
// sizes follow the run's imgsz by the rule `around` names.
struct MultiScale {
  enum class Resize { bilinear, nearest };
  enum class Around {
    yolo_range,    // each multiple of 32 from imgsz / 2 to 3 * imgsz / 2 (LibreYOLO's YOLOs)
    dfine_scales,  // D-FINE's generate_scales: the multiples of 32 from floor(0.75 imgsz / 32) * 32
                   // up to imgsz, imgsz `base_repeat` times, and as many steps down from
                   // floor(1.25 imgsz / 32) * 32 (at 640: 480..608, 640 x3, 800..672)
  };
  std::vector<int> sizes;
  Resize resize = Resize::bilinear;
  Around around = Around::yolo_range;
  int base_repeat = 3;  // dfine_scales only
};

using RecipeValue = std::variant<bool, int, double, std::string, Range>;

struct Recipe {
  // Length and size of training.
  std::optional<int> epochs;
  std::optional<int> batch;
  std::optional<int> nbs;  // nominal batch for gradient accumulation
  // Optimizer.
  std::optional<std::string> optimizer;  // "sgd" or "adamw"
  std::optional<double> lr0;             // per image at batch 64 for yoloxwarmcos, see docs/cli.md
  std::optional<double> momentum;
  std::optional<double> weight_decay;
  std::optional<bool> nesterov;
  std::optional<double> clip_grad;  // max gradient norm; 0 disables clipping
  // Schedule.
  std::optional<std::string> scheduler;  // yoloxwarmcos, linear, cosine, flatcosine
  std::optional<int> warmup_epochs;
  std::optional<double> warmup_lr_start;
  std::optional<int> no_aug_epochs;
  std::optional<double> min_lr_ratio;
  // Augmentation (the transforms themselves are in `augmentation` below).
  std::optional<bool> multi_scale;
  // Weight averaging.
  std::optional<bool> ema;
  std::optional<double> ema_decay;

  // Calls visit(name, value) for every field that is set, in declaration order.
  template <class Visitor>
  void for_each_field(Visitor&& visit) const {
    auto v = [&](const char* name, const auto& field) {
      if (field) visit(name, RecipeValue(*field));
    };
    v("epochs", epochs);
    v("batch", batch);
    v("nbs", nbs);
    v("optimizer", optimizer);
    v("lr0", lr0);
    v("momentum", momentum);
    v("weight_decay", weight_decay);
    v("nesterov", nesterov);
    v("clip_grad", clip_grad);
    v("scheduler", scheduler);
    v("warmup_epochs", warmup_epochs);
    v("warmup_lr_start", warmup_lr_start);
    v("no_aug_epochs", no_aug_epochs);
    v("min_lr_ratio", min_lr_ratio);
    v("multi_scale", multi_scale);
    v("ema", ema);
    v("ema_decay", ema_decay);
  }

  // The augmentation pipelines this size trains with: the first from epoch 0; `schedule`
  // switches between them by name. No pipeline: every sample is only letterboxed.
  std::vector<augment::Pipeline> augmentation;
  // What changes at which epoch (applied in this order when several fall on one epoch).
  std::vector<EpochChange> schedule;
  MultiScale multi_scale_sizes;
  // Optimizer groups by parameter name (none: LibreYOLO's YOLO split), and parameters that
  // never train (e.g. a frozen stem: "backbone.stem.*").
  std::vector<ParamGroupRule> param_groups;
  std::vector<std::string> frozen;
  // The groups the user's freeze=N counts, in order (none: the detector's top-level modules
  // that hold a parameter, LibreYOLO's default_freeze_groups). `frozen` above never trains
  // whatever freeze says; these train unless the user freezes them.
  std::vector<FreezeGroup> freeze_groups;
};

}  // namespace libreyolo::sdk
