// LibreYOLO's schedules at chosen steps. "by hand" values are worked out from the formulas;
// the exact literals are what LibreYOLO's Python (training/scheduler.py) returns, printed with
// repr(), so they also pin the order of the floating-point operations.
//
// Common setting: 10 optimizer steps per epoch, 20 epochs (200 steps).

#include <doctest/doctest.h>

#include <string>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/optim/lr_schedule.hpp"

namespace optim = libreyolo::core::optim;
using optim::LrScheduleKind;

namespace {

optim::LrSchedule schedule(LrScheduleKind kind, double lr0, int64_t warmup_epochs,
                           double warmup_lr_start, int64_t no_aug_epochs, double min_lr_ratio) {
  optim::LrSchedule s;
  s.kind = kind;
  s.lr0 = lr0;
  s.iters_per_epoch = 10;
  s.total_epochs = 20;
  s.warmup_epochs = warmup_epochs;
  s.warmup_lr_start = warmup_lr_start;
  s.no_aug_epochs = no_aug_epochs;
  s.min_lr_ratio = min_lr_ratio;
  return s;
}

}  // namespace

TEST_CASE("yoloxwarmcos: quadratic warm-up, cosine, min_lr plateau over the no-aug epochs") {
  // warm-up 20 steps, plateau from step 150, cosine over 130 steps in between; min_lr 5e-4.
  const auto s = schedule(LrScheduleKind::yoloxwarmcos, 0.01, 2, 0.0, 5, 0.05);
  CHECK(optim::learning_rate(s, 0) == 0.0);                         // start
  CHECK(optim::learning_rate(s, 10) == doctest::Approx(0.01 / 4));  // (1/2)^2 of the way
  CHECK(optim::learning_rate(s, 10) == 0.0025);
  CHECK(optim::learning_rate(s, 20) == 0.01);                       // end of warm-up
  CHECK(optim::learning_rate(s, 21) == 0.009998613066880917);
  // Middle of the cosine (85 = 20 + 130 / 2): min_lr + (lr0 - min_lr) / 2.
  CHECK(optim::learning_rate(s, 85) == doctest::Approx(0.0005 + 0.0095 / 2));
  CHECK(optim::learning_rate(s, 85) == 0.0052499999999999995);
  CHECK(optim::learning_rate(s, 149) == 0.0005013869331190836);
  CHECK(optim::learning_rate(s, 150) == 0.0005);  // start of no-aug: the plateau
  CHECK(optim::learning_rate(s, 199) == 0.0005);  // last step
  CHECK(optim::learning_rate(s, 200) == 0.0005);
}

TEST_CASE("yoloxwarmcos: warmup_lr_start is clamped to lr0; no warm-up starts on the cosine") {
  const auto clamped = schedule(LrScheduleKind::yoloxwarmcos, 0.01, 2, 0.02, 5, 0.05);
  CHECK(optim::learning_rate(clamped, 0) == 0.01);
  CHECK(optim::learning_rate(clamped, 10) == 0.01);
  const auto no_warmup = schedule(LrScheduleKind::yoloxwarmcos, 0.01, 0, 0.0, 5, 0.05);
  CHECK(optim::learning_rate(no_warmup, 0) == 0.01);
  CHECK(optim::learning_rate(no_warmup, 75) == 0.0052499999999999995);
}

TEST_CASE("linear: linear warm-up, then linear decay to lr0 * min_lr_ratio") {
  // YOLOv9 recipe: warm-up 3 epochs from 1e-4, min_lr_ratio 0.01.
  const auto s = schedule(LrScheduleKind::linear, 0.01, 3, 0.0001, 15, 0.01);
  CHECK(optim::learning_rate(s, 0) == 0.0001);
  CHECK(optim::learning_rate(s, 15) == doctest::Approx((0.01 + 0.0001) / 2));
  CHECK(optim::learning_rate(s, 15) == 0.005050000000000001);
  CHECK(optim::learning_rate(s, 30) == 0.01);
  CHECK(optim::learning_rate(s, 31) == 0.009941764705882353);
  CHECK(optim::learning_rate(s, 115) == 0.00505);  // half-way through the decay
  CHECK(optim::learning_rate(s, 200) == doctest::Approx(0.0001));
  CHECK(optim::learning_rate(s, 200) == 9.99999999999994e-05);
}

TEST_CASE("cosine: linear warm-up, then cosine to lr0 * min_lr_ratio") {
  const auto s = schedule(LrScheduleKind::cosine, 0.01, 3, 0.0001, 15, 0.01);
  CHECK(optim::learning_rate(s, 0) == 0.0001);
  CHECK(optim::learning_rate(s, 15) == 0.005050000000000001);
  CHECK(optim::learning_rate(s, 30) == 0.01);
  CHECK(optim::learning_rate(s, 115) == doctest::Approx(0.0001 + 0.0099 / 2));
  CHECK(optim::learning_rate(s, 115) == 0.005050000000000001);
  CHECK(optim::learning_rate(s, 200) == 0.0001);
}

TEST_CASE("flatcosine: linear warm-up, flat lr0, cosine over the last no_aug_epochs") {
  // D-FINE-like: lr0 4e-4, warm-up 2 epochs from 1e-6, cosine tail 4 epochs from step 160.
  const auto s = schedule(LrScheduleKind::flatcosine, 0.0004, 2, 1e-6, 4, 0.05);
  CHECK(optim::learning_rate(s, 0) == 1e-6);
  CHECK(optim::learning_rate(s, 10) == 0.00020049999999999997);
  CHECK(optim::learning_rate(s, 20) == 0.00039999999999999996);
  CHECK(optim::learning_rate(s, 100) == 0.0004);  // flat
  CHECK(optim::learning_rate(s, 159) == 0.0004);
  CHECK(optim::learning_rate(s, 160) == 0.0004);  // cosine starts at its top
  CHECK(optim::learning_rate(s, 180) == doctest::Approx(0.00002 + 0.00038 / 2));
  CHECK(optim::learning_rate(s, 180) == 0.00021);
  CHECK(optim::learning_rate(s, 200) == 2e-05);
  CHECK(optim::learning_rate(s, 230) == 2e-05);  // progress is capped at 1
}

TEST_CASE("constant: optional linear warm-up, then lr0") {
  const auto s = schedule(LrScheduleKind::constant, 0.01, 1, 0.001, 15, 0.05);
  CHECK(optim::learning_rate(s, 0) == 0.001);
  CHECK(optim::learning_rate(s, 5) == 0.0055000000000000005);
  CHECK(optim::learning_rate(s, 10) == 0.010000000000000002);  // Python's rounding, kept
  CHECK(optim::learning_rate(s, 11) == 0.01);
  CHECK(optim::learning_rate(s, 199) == 0.01);
  const auto flat = schedule(LrScheduleKind::constant, 0.01, 0, 0.001, 15, 0.05);
  CHECK(optim::learning_rate(flat, 0) == 0.01);
}

TEST_CASE("parse_lr_schedule: LibreYOLO's names and aliases") {
  CHECK(optim::parse_lr_schedule("yoloxwarmcos") == LrScheduleKind::yoloxwarmcos);
  CHECK(optim::parse_lr_schedule("linear") == LrScheduleKind::linear);
  CHECK(optim::parse_lr_schedule("cos") == LrScheduleKind::cosine);
  CHECK(optim::parse_lr_schedule("warmcos") == LrScheduleKind::cosine);
  CHECK(optim::parse_lr_schedule("cosine") == LrScheduleKind::cosine);
  CHECK(optim::parse_lr_schedule("flatcosine") == LrScheduleKind::flatcosine);
  CHECK(optim::parse_lr_schedule("constant") == LrScheduleKind::constant);
  CHECK(std::string(optim::to_string(LrScheduleKind::flatcosine)) == "flatcosine");
  CHECK_THROWS_AS(optim::parse_lr_schedule("step"), libreyolo::core::Error);
}
