#pragma once
// A family's training recipe: the option defaults it trains best with. Every field is
// optional; an unset field leaves the host's global default in place. Precedence, lowest
// first: global default < family policy and recipe < cfg= file < command line.
//
// Field names are the option names users type (`lr0=0.02`), so a reader can go from a
// command line to the recipe that set its default. for_each_field() lists every field once;
// the host uses it to apply and to print the recipe, so a new field needs one line there.

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace libreyolo::sdk {

// A closed (low, high) range, e.g. mosaic_scale = (0.1, 2.0).
struct Range {
  double low = 0.0;
  double high = 0.0;
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
  // Augmentation.
  std::optional<double> mosaic_prob;
  std::optional<double> mixup_prob;
  std::optional<double> hsv_prob;
  std::optional<double> flip_prob;
  std::optional<double> degrees;
  std::optional<double> translate;
  std::optional<Range> mosaic_scale;
  std::optional<Range> mixup_scale;
  std::optional<double> shear;
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
    v("mosaic_prob", mosaic_prob);
    v("mixup_prob", mixup_prob);
    v("hsv_prob", hsv_prob);
    v("flip_prob", flip_prob);
    v("degrees", degrees);
    v("translate", translate);
    v("mosaic_scale", mosaic_scale);
    v("mixup_scale", mixup_scale);
    v("shear", shear);
    v("multi_scale", multi_scale);
    v("ema", ema);
    v("ema_decay", ema_decay);
  }
};

}  // namespace libreyolo::sdk
