// The recipe's epoch schedule: where each kind of epoch point lands, that each change is
// applied once and in order, what a resumed run applies before its first epoch, and that a
// change declaring a new captured region reaches the capture manager's side.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "libreyolo/core/error.hpp"
#include "libreyolo/core/trainer/epoch_schedule.hpp"

using namespace libreyolo;
using core::trainer::EpochSchedule;
using core::trainer::resolve_epoch;
using sdk::EpochPoint;

namespace {

long long no_options(const std::string& name) {
  FAIL("unexpected option " << name);
  return 0;
}

// Records what the schedule did, in order.
class RecordingTarget : public core::trainer::ScheduleTarget {
 public:
  void switch_augmentation(const std::string& p) override { log.push_back("augmentation " + p); }
  void set_multi_scale(bool on) override { log.push_back(std::string("multi_scale ") + (on ? "on" : "off")); }
  void set_ema_decay(double d) override { log.push_back("ema " + std::to_string(d)); }
  void detector_event(const std::string& e) override { log.push_back("event " + e); }
  void captured_region_changed(const std::string& reason) override { log.push_back("capture: " + reason); }
  std::vector<std::string> log;
};

}  // namespace

TEST_CASE("epoch schedule: absolute, from-end (fixed or from an option) and fraction points") {
  CHECK(resolve_epoch(EpochPoint::at(7), 300, no_options) == 7);
  CHECK(resolve_epoch(EpochPoint::from_end(20), 300, no_options) == 280);  // RTMDet's mosaic close
  CHECK(resolve_epoch(EpochPoint::from_end(0), 300, no_options) == 300);   // never
  CHECK(resolve_epoch(EpochPoint::from_end(400), 300, no_options) == 0);   // from the start
  CHECK(resolve_epoch(EpochPoint::fraction(0.85), 132, no_options) == 112);  // D-FINE's stop_epoch
  CHECK(resolve_epoch(EpochPoint::fraction(1.0), 10, no_options) == 10);
  const auto options = [](const std::string& name) -> long long { return name == "no_aug_epochs" ? 15 : -99; };
  CHECK(resolve_epoch(EpochPoint::from_end_option("no_aug_epochs"), 20, options) == 5);
  CHECK_THROWS_AS(resolve_epoch(EpochPoint::fraction(1.5), 10, no_options), core::Error);
  CHECK_THROWS_AS(resolve_epoch(EpochPoint::at(-1), 10, no_options), core::Error);
  CHECK_THROWS_WITH_AS(resolve_epoch(EpochPoint::from_end_option("bad"), 10, options),
                       doctest::Contains("-99 epochs from the end"), core::Error);
}

TEST_CASE("epoch schedule: a fraction placed by an option (aug_stop_epoch_ratio) follows the option, 0 from the start") {
  EpochPoint stop = EpochPoint::fraction(0.85);  // D-FINE's declared default
  stop.count_option = "aug_stop_epoch_ratio";
  double ratio = 0.85;
  const auto options = [&](const std::string& name) { return name == "aug_stop_epoch_ratio" ? ratio : -1.0; };
  CHECK(resolve_epoch(stop, 132, options) == 112);
  ratio = 0.0;  // LibreYOLO's way to train without the strong augmentation at all
  CHECK(resolve_epoch(stop, 132, options) == 0);
  ratio = 0.5;
  CHECK(resolve_epoch(stop, 10, options) == 5);
  ratio = 1.5;
  CHECK_THROWS_WITH_AS(resolve_epoch(stop, 10, options), doctest::Contains("fraction 1.5"), core::Error);
  // A from-end count must be a whole number, whichever option gives it.
  const auto half = [](const std::string&) { return 2.5; };
  CHECK_THROWS_WITH_AS(resolve_epoch(EpochPoint::from_end_option("no_aug_epochs"), 10, half),
                       doctest::Contains("whole number"), core::Error);
}

TEST_CASE("epoch schedule: each change fires once at its epoch, in declaration order, and says so") {
  sdk::EpochChange strong_off;
  strong_off.at = EpochPoint::fraction(0.85);
  strong_off.what = "strong augmentation and multi-scale off";
  strong_off.augmentation = "weak";
  strong_off.multi_scale = false;
  sdk::EpochChange ema_restart;
  ema_restart.at = EpochPoint::from_end(4);
  ema_restart.what = "EMA restart";
  ema_restart.ema_decay = 0.9999;
  sdk::EpochChange branch;
  branch.at = EpochPoint::at(112);
  branch.what = "extra loss branch";
  branch.detector_event = "branch_on";
  branch.changes_captured_region = true;
  EpochSchedule schedule({strong_off, ema_restart, branch}, 132, no_options);
  CHECK(schedule.epochs() == std::vector<int>{112, 128, 112});

  RecordingTarget target;
  std::vector<int> fired_at;
  for (int epoch = 0; epoch < 132; ++epoch) {
    const auto before = target.log.size();
    const auto lines = schedule.apply_due(epoch, target);
    if (target.log.size() != before) fired_at.push_back(epoch);
    if (epoch == 112) {
      REQUIRE(lines.size() == 2);
      CHECK(lines[0] == "epoch 113/132: strong augmentation and multi-scale off (augmentation weak, multi-scale off)");
      CHECK(lines[1].find("epoch 113/132: extra loss branch (detector: branch_on, captured region changes)") == 0);
    }
  }
  CHECK(fired_at == std::vector<int>{112, 128});
  CHECK(target.log == std::vector<std::string>{"augmentation weak", "multi_scale off", "event branch_on",
                                               "capture: extra loss branch at epoch 113", "ema 0.999900"});
}

TEST_CASE("epoch schedule: a resumed run applies every passed change before its first epoch") {
  sdk::EpochChange a, b, later;
  a.at = EpochPoint::at(2);
  a.augmentation = "second";
  b.at = EpochPoint::at(5);
  b.detector_event = "x";
  b.changes_captured_region = true;
  later.at = EpochPoint::at(9);
  later.augmentation = "third";
  EpochSchedule schedule({a, b, later}, 10, no_options);
  RecordingTarget target;
  const auto lines = schedule.apply_due(7, target);  // resumed after epoch 7 (0-based 6)
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("applied on resuming at epoch 8") != std::string::npos);
  CHECK(target.log == std::vector<std::string>{"augmentation second", "event x", "capture: scheduled change at epoch 6"});
  CHECK(schedule.apply_due(7, target).empty());  // never twice
  CHECK(schedule.apply_due(9, target).size() == 1);
}

TEST_CASE("epoch schedule: a change past the run's end never fires") {
  sdk::EpochChange never;
  never.at = EpochPoint::from_end(0);
  never.augmentation = "x";
  EpochSchedule schedule({never}, 3, no_options);
  RecordingTarget target;
  for (int epoch = 0; epoch < 3; ++epoch) CHECK(schedule.apply_due(epoch, target).empty());
  CHECK(target.log.empty());
}
