#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

#include "libreyolo/core/capture/capture_policy.hpp"

using namespace libreyolo::core::capture;

namespace {
const Shape kTrain{16, 3, 640, 640};
const Shape kPartial{8, 3, 640, 640};
const Shape kScaled{16, 3, 512, 512};
}  // namespace

TEST_CASE("capture policy: a shape is captured on its third sighting and replayed after") {
  CapturePolicy policy;
  auto first = policy.decide(kTrain);
  CHECK(first.plan == StepPlan::eager);
  CHECK(first.eager_note == "batch shape 16x3x640x640 runs eager until it has been seen 3 times");
  auto second = policy.decide(kTrain);
  CHECK(second.plan == StepPlan::eager);
  CHECK(second.eager_note.empty());  // said once per shape
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);
  policy.captured(kTrain);
  CHECK(policy.decide(kTrain).plan == StepPlan::replay);
  CHECK(policy.decide(kTrain).plan == StepPlan::replay);
  CHECK(policy.graphs_held() == 1);
}

TEST_CASE("capture policy: other shapes run eager and count on their own") {
  CapturePolicy policy;
  for (int i = 0; i < 2; ++i) policy.decide(kTrain);
  CHECK(policy.decide(kPartial).plan == StepPlan::eager);  // does not borrow kTrain's count
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);
  policy.captured(kTrain);
  CHECK(policy.decide(kPartial).plan == StepPlan::eager);
  CHECK(policy.decide(kPartial).plan == StepPlan::capture);  // an epoch's last batch, third epoch
}

TEST_CASE("capture policy: no more graphs than max_graphs; the refusal is said once") {
  CaptureSettings settings;
  settings.repeats_before_capture = 1;
  settings.max_graphs = 1;
  CapturePolicy policy(settings);
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);
  policy.captured(kTrain);
  auto refused = policy.decide(kScaled);
  CHECK(refused.plan == StepPlan::eager);
  CHECK(refused.eager_note.find("1 graphs are already held") != std::string::npos);
  CHECK(policy.decide(kScaled).eager_note.empty());
  CHECK(policy.decide(kTrain).plan == StepPlan::replay);
}

TEST_CASE("capture policy: a capture that never reports success is not replayed") {
  CapturePolicy policy({1, 2});
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);  // still no graph: asks again
}

TEST_CASE("capture policy: invalidation drops graphs and restarts the counts") {
  CapturePolicy policy;
  for (int i = 0; i < 3; ++i) policy.decide(kTrain);
  policy.captured(kTrain);
  policy.invalidate();
  CHECK(policy.graphs_held() == 0);
  auto after = policy.decide(kTrain);
  CHECK(after.plan == StepPlan::eager);
  CHECK_FALSE(after.eager_note.empty());  // logged again after the change
  CHECK(policy.decide(kTrain).plan == StepPlan::eager);
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);
}

TEST_CASE("capture policy: disabled means eager for good") {
  CapturePolicy policy({1, 2});
  CHECK(policy.decide(kTrain).plan == StepPlan::capture);
  policy.captured(kTrain);
  policy.disable();
  CHECK(policy.disabled());
  CHECK(policy.graphs_held() == 0);
  for (int i = 0; i < 5; ++i) CHECK(policy.decide(kTrain).plan == StepPlan::eager);
  policy.invalidate();
  CHECK(policy.decide(kTrain).plan == StepPlan::eager);
}

TEST_CASE("capture policy: settings are validated; shapes print as NxCxHxW") {
  CHECK_THROWS_AS(CapturePolicy({0, 2}), std::invalid_argument);
  CHECK_THROWS_AS(CapturePolicy({3, 0}), std::invalid_argument);
  CHECK(shape_text({16, 3, 640, 640}) == "16x3x640x640");
  CHECK(shape_text({}).empty());
}

TEST_CASE("capture policy: an epoch's eager batches by shape, and the note that names multi_scale=false") {
  CapturePolicy policy;
  for (int i = 0; i < 4; ++i) policy.decide(kTrain);  // eager, eager, capture (not captured: asked again)
  policy.captured(kTrain);
  policy.decide(kTrain);  // replay
  policy.decide(kScaled);
  policy.decide(kScaled);
  const auto eager = policy.take_epoch_eager();
  REQUIRE(eager.size() == 2);
  CHECK(eager.at(kTrain) == 2);
  CHECK(eager.at(kScaled) == 2);
  CHECK(policy.take_epoch_eager().empty());  // the next epoch counts afresh
  const auto note = eager_epoch_note(eager, 7, policy.settings(), policy.graphs_held(), /*multi_scale=*/true);
  CHECK(note.find("4 of this epoch's 7 batches ran eager, in 2 shapes not yet seen 3 times") != std::string::npos);
  CHECK(note.find("16x3x512x512 (2)") != std::string::npos);
  CHECK(note.find("multi_scale=false") != std::string::npos);
  CHECK(eager_epoch_note(eager, 7, policy.settings(), 1, /*multi_scale=*/false).find("multi_scale") ==
        std::string::npos);
  CHECK(eager_epoch_note({}, 7, policy.settings(), 1, true).empty());
}

TEST_CASE("capture policy: whole-step target capacities are 16, 24, 32, 48, 64, ... and hold the boxes") {
  CHECK(target_capacity(0) == 16);
  CHECK(target_capacity(1) == 16);
  CHECK(target_capacity(16) == 16);
  CHECK(target_capacity(17) == 24);
  CHECK(target_capacity(24) == 24);
  CHECK(target_capacity(25) == 32);
  CHECK(target_capacity(33) == 48);
  CHECK(target_capacity(49) == 64);
  CHECK(target_capacity(97) == 128);
  CHECK(target_capacity(129) == 192);
  CHECK(target_capacity(1000) == 1024);
  for (std::int64_t boxes = 1; boxes < 5000; ++boxes) {
    const auto capacity = target_capacity(boxes);
    REQUIRE(capacity >= boxes);
    REQUIRE(2 * capacity <= 3 * std::max<std::int64_t>(boxes, 11));  // at most half again (16 for the smallest)
  }
}
