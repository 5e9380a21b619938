#include "libreyolo/core/optim/lr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "libreyolo/core/error.hpp"

namespace libreyolo::core::optim {

LrScheduleKind parse_lr_schedule(std::string_view name) {
  if (name == "yoloxwarmcos") return LrScheduleKind::yoloxwarmcos;
  if (name == "linear") return LrScheduleKind::linear;
  if (name == "cos" || name == "warmcos" || name == "cosine") return LrScheduleKind::cosine;
  if (name == "flatcosine") return LrScheduleKind::flatcosine;
  if (name == "constant") return LrScheduleKind::constant;
  throw Error("Unknown scheduler '" + std::string(name) + "'", "",
              "use one of yoloxwarmcos, linear, cosine (cos, warmcos), flatcosine, constant");
}

const char* to_string(LrScheduleKind kind) {
  switch (kind) {
    case LrScheduleKind::yoloxwarmcos: return "yoloxwarmcos";
    case LrScheduleKind::linear: return "linear";
    case LrScheduleKind::cosine: return "cosine";
    case LrScheduleKind::flatcosine: return "flatcosine";
    case LrScheduleKind::constant: return "constant";
  }
  return "?";
}

namespace {

constexpr double kPi = 3.14159265358979323846;  // Python's math.pi

// The linear warm-up all schedules but yoloxwarmcos share: (lr - start) * it / warmup + start,
// evaluated left to right as Python does.
double linear_warmup(double lr, double start, int64_t it, int64_t warmup_iters) {
  return (lr - start) * static_cast<double>(it) / static_cast<double>(warmup_iters) + start;
}

}  // namespace

double learning_rate(const LrSchedule& s, int64_t it) {
  const double lr = s.lr0;
  const double start = std::min(s.warmup_lr_start, lr);  // never warm "down"
  const double min_lr = lr * s.min_lr_ratio;
  const int64_t total_iters = s.iters_per_epoch * s.total_epochs;
  const int64_t warmup_iters = s.iters_per_epoch * s.warmup_epochs;
  const double x = static_cast<double>(it);

  switch (s.kind) {
    case LrScheduleKind::yoloxwarmcos: {
      const int64_t plateau_iters = s.iters_per_epoch * s.no_aug_epochs;
      if (warmup_iters > 0 && it <= warmup_iters) {  // quadratic warm-up
        return (lr - start) * std::pow(x / static_cast<double>(warmup_iters), 2) + start;
      }
      if (it >= total_iters - plateau_iters) return min_lr;  // no-aug plateau
      return min_lr + 0.5 * (lr - min_lr) *
                          (1.0 + std::cos(kPi * static_cast<double>(it - warmup_iters) /
                                          static_cast<double>(total_iters - warmup_iters -
                                                              plateau_iters)));
    }
    case LrScheduleKind::linear: {
      if (it <= warmup_iters) {
        return warmup_iters > 0 ? linear_warmup(lr, start, it, warmup_iters) : lr;
      }
      const double progress = static_cast<double>(it - warmup_iters) /
                              static_cast<double>(std::max<int64_t>(1, total_iters - warmup_iters));
      return lr - (lr - min_lr) * progress;
    }
    case LrScheduleKind::cosine: {
      if (it <= warmup_iters) {
        return warmup_iters > 0 ? linear_warmup(lr, start, it, warmup_iters) : lr;
      }
      const double progress = static_cast<double>(it - warmup_iters) /
                              static_cast<double>(std::max<int64_t>(1, total_iters - warmup_iters));
      return min_lr + 0.5 * (lr - min_lr) * (1 + std::cos(kPi * progress));
    }
    case LrScheduleKind::flatcosine: {
      if (it <= warmup_iters) {
        return warmup_iters > 0 ? linear_warmup(lr, start, it, warmup_iters) : lr;
      }
      const int64_t cosine_iters = s.iters_per_epoch * s.no_aug_epochs;
      const int64_t cosine_start = total_iters - cosine_iters;
      if (it < cosine_start) return lr;
      const double progress =
          std::min(1.0, static_cast<double>(it - cosine_start) /
                            static_cast<double>(std::max<int64_t>(1, cosine_iters)));
      return min_lr + 0.5 * (lr - min_lr) * (1 + std::cos(kPi * progress));
    }
    case LrScheduleKind::constant: {
      if (it <= warmup_iters && warmup_iters > 0) return linear_warmup(lr, start, it, warmup_iters);
      return lr;
    }
  }
  return lr;
}

}  // namespace libreyolo::core::optim
