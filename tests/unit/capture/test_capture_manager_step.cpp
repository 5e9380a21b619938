// The capture manager's whole-step mode (capture region `step`): which calls of run_step run
// the step eager, record it or replay it; how many times the step itself runs in each; what a
// failed recording or replay leaves behind; and when region `step` falls back to capturing the
// network region. The recorder is a fake that "records" by running the step once (the warm-up
// the CUDA recorder does) and "replays" by running it again: no GPU needed.
#include "../torch_doctest.hpp"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "libreyolo/core/capture/capture_manager.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "tiny_detector.hpp"

using namespace libreyolo;
using namespace libreyolo::core::capture;

namespace {

using test::TinyDetector;

// What the fake recorders saw, and the switches that make them fail.
struct RecorderLog {
  int step_recordings = 0, replays = 0, step_graphs_alive = 0;
  int region_recordings = 0, region_runs = 0;
  bool fail_recording = false, fail_replay = false;
  std::string device;  // the device record_step was given
};

class FakeStepGraph : public StepGraph {
 public:
  FakeStepGraph(RecorderLog& log, StepFunction step) : log_(log), step_(std::move(step)) { ++log_.step_graphs_alive; }
  ~FakeStepGraph() override { --log_.step_graphs_alive; }
  void replay() override {
    // Throws before running the step, so a test can tell the manager's eager rerun from this.
    if (log_.fail_replay) throw std::runtime_error("replay broke\nbacktrace lines");
    ++log_.replays;
    step_();
  }
  double pinned_gb() const override { return 0.25; }

 private:
  RecorderLog& log_;
  StepFunction step_;
};

class FakeRegionGraph : public RegionGraph {
 public:
  FakeRegionGraph(RecorderLog& log, RegionFunction region) : log_(log), region_(std::move(region)) {}
  std::vector<torch::Tensor> run(const torch::Tensor& images) override {
    ++log_.region_runs;
    return region_(images);
  }
  double pinned_gb() const override { return 0.5; }

 private:
  RecorderLog& log_;
  RegionFunction region_;
};

// Records network regions only: record_step is the base class's, which runs the step once and
// throws CaptureFailure (a recorder that predates whole-step capture).
class RegionRecorder : public GraphRecorder {
 public:
  explicit RegionRecorder(RecorderLog& log) : log_(log) {}
  std::unique_ptr<RegionGraph> record(const RegionFunction& region, const torch::Tensor&,
                                      const std::vector<torch::Tensor>&, const std::vector<torch::Tensor>&) override {
    ++log_.region_recordings;
    return std::make_unique<FakeRegionGraph>(log_, region);
  }

 protected:
  RecorderLog& log_;
};

// Records whole steps as the CUDA recorder does: one real run of the step, then the graph.
class StepRecorder : public RegionRecorder {
 public:
  using RegionRecorder::RegionRecorder;
  std::unique_ptr<StepGraph> record_step(const StepFunction& step, const torch::Device& device) override {
    ++log_.step_recordings;
    log_.device = device.str();
    step();
    if (log_.fail_recording) throw CaptureFailure("operation not permitted when stream is capturing");
    return std::make_unique<FakeStepGraph>(log_, step);
  }
};

CaptureRequest step_requested() {
  CaptureRequest request;
  request.cuda_graph = true;
  request.cuda_device = true;
  request.family = "tiny";
  request.region = sdk::CaptureRegion::step;
  return request;
}

torch::Tensor batch(int n) { return torch::ones({n, 3, 8, 8}); }

// A step that counts its runs, and an `abandoned` callback that counts its calls.
struct StepProbe {
  int runs = 0, abandoned = 0;
  StepFunction step() {
    return [this] { ++runs; };
  }
  std::function<void()> on_abandon() {
    return [this] { ++abandoned; };
  }
};

// One run_step call; `ran` is how many times the step ran inside it.
StepRun run_once(CaptureManager& manager, const Shape& key, StepProbe& probe, int* ran = nullptr) {
  const int before = probe.runs;
  const auto how = manager.run_step(key, probe.step(), probe.on_abandon());
  if (ran) *ran = probe.runs - before;
  return how;
}

const Shape kKey = {16, 3, 64, 64, 32, 1, 1};
const Shape kOtherKey = {8, 3, 64, 64, 32, 1, 1};

}  // namespace

TEST_CASE("whole-step capture: forward() runs the network eager and counts nothing") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  REQUIRE(manager.whole_step());
  CHECK(manager.active());
  const auto expected = model.forward_capturable(batch(2))[0];
  std::vector<torch::Tensor> out;
  for (int i = 0; i < 4; ++i) out = manager.forward(batch(2));  // past the repeats: still no recording
  REQUIRE(out.size() == 1);
  CHECK(torch::equal(out[0], expected));
  CHECK(model.eager_forwards == 5);
  CHECK(manager.counters().eager == 0);  // run_step counts the step; its forward is part of it
  CHECK(log.region_recordings == 0);
  CHECK(log.step_recordings == 0);
}

TEST_CASE("whole-step capture: eager twice, recorded on the third sighting (one run), replayed after") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  int ran = 0;
  for (int i = 0; i < 2; ++i) {
    CHECK(run_once(manager, kKey, probe, &ran) == StepRun::eager);
    CHECK(ran == 1);
  }
  CHECK(log.step_recordings == 0);
  CHECK(manager.graph_memory_gb() == 0.0);

  CHECK(run_once(manager, kKey, probe, &ran) == StepRun::recorded);
  CHECK(ran == 1);  // the recorder's warm-up is this batch's step; recording does not run it again
  CHECK(log.step_recordings == 1);
  CHECK(log.device == "cpu");  // the model's parameters' device
  CHECK(manager.graph_memory_gb() == doctest::Approx(0.25));

  for (int i = 0; i < 3; ++i) {
    CHECK(run_once(manager, kKey, probe, &ran) == StepRun::replayed);
    CHECK(ran == 1);
  }
  CHECK(log.replays == 3);
  CHECK(log.step_recordings == 1);
  CHECK(manager.counters().eager == 2);
  CHECK(manager.counters().captures == 1);
  CHECK(manager.counters().replays == 3);
  CHECK(manager.counters().failures == 0);
  CHECK(manager.whole_step());
}

TEST_CASE("whole-step capture: each key is counted and recorded on its own") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  for (int i = 0; i < 3; ++i) run_once(manager, kKey, probe);
  REQUIRE(log.step_recordings == 1);
  // The first key's sightings do not count for the second.
  CHECK(run_once(manager, kOtherKey, probe) == StepRun::eager);
  CHECK(run_once(manager, kOtherKey, probe) == StepRun::eager);
  CHECK(run_once(manager, kKey, probe) == StepRun::replayed);
  CHECK(run_once(manager, kOtherKey, probe) == StepRun::recorded);
  CHECK(run_once(manager, kOtherKey, probe) == StepRun::replayed);
  CHECK(log.step_recordings == 2);
  CHECK(log.step_graphs_alive == 2);
  CHECK(manager.graph_memory_gb() == doctest::Approx(0.5));
  CHECK(manager.counters().captures == 2);
  CHECK(manager.counters().replays == 2);
  CHECK(manager.counters().eager == 4);
}

TEST_CASE("whole-step capture: up to kMaxStepGraphs keys get a graph, not the network's max_graphs") {
  TinyDetector model;
  RecorderLog log;
  auto request = step_requested();
  REQUIRE(request.settings.max_graphs < kMaxStepGraphs);  // else this proves nothing
  CaptureManager manager(request, model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  const auto key = [](int i) { return Shape{i + 1, 3, 64, 64, 32, 1, 1}; };
  for (int i = 0; i < kMaxStepGraphs; ++i) {
    for (int n = 0; n < 3; ++n) run_once(manager, key(i), probe);
  }
  CHECK(log.step_recordings == kMaxStepGraphs);
  CHECK(log.step_graphs_alive == kMaxStepGraphs);
  // One key more finds every slot taken: it stays eager, and the graphs held keep replaying.
  for (int n = 0; n < 4; ++n) {
    CHECK(run_once(manager, key(kMaxStepGraphs), probe) == StepRun::eager);
  }
  CHECK(run_once(manager, key(0), probe) == StepRun::replayed);
  CHECK(log.step_recordings == kMaxStepGraphs);
}

TEST_CASE("whole-step capture: a failed recording falls back once, with the step run once") {
  TinyDetector model;
  RecorderLog log;
  log.fail_recording = true;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  for (int i = 0; i < 2; ++i) run_once(manager, kKey, probe);
  int ran = 0;
  CHECK(run_once(manager, kKey, probe, &ran) == StepRun::fell_back);
  CHECK(ran == 1);  // the recorder's run; the manager must not run the batch's step a second time
  CHECK(probe.abandoned == 1);
  CHECK(log.step_recordings == 1);
  CHECK(log.step_graphs_alive == 0);
  CHECK_FALSE(manager.whole_step());
  CHECK_FALSE(manager.active());
  CHECK(manager.counters().failures == 1);
  CHECK(manager.counters().captures == 0);
  CHECK(manager.graph_memory_gb() == 0.0);
}

TEST_CASE("whole-step capture: a failed replay releases the graphs and runs the step eager once") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  for (int i = 0; i < 3; ++i) run_once(manager, kKey, probe);
  REQUIRE(log.step_graphs_alive == 1);
  log.fail_replay = true;
  int ran = 0;
  CHECK(run_once(manager, kKey, probe, &ran) == StepRun::fell_back);
  CHECK(ran == 1);  // the replay threw before the step ran: the manager ran it eager
  CHECK(probe.abandoned == 1);
  CHECK(log.replays == 0);
  CHECK(log.step_graphs_alive == 0);
  CHECK_FALSE(manager.whole_step());
  CHECK_FALSE(manager.active());
  CHECK(manager.counters().failures == 1);
  CHECK(manager.graph_memory_gb() == 0.0);
}

TEST_CASE("whole-step capture: a failure makes run_step a logic error; the trainer asks whole_step() first") {
  TinyDetector model;
  RecorderLog log;
  log.fail_recording = true;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  for (int i = 0; i < 3; ++i) run_once(manager, kKey, probe);
  REQUIRE_FALSE(manager.whole_step());
  const int runs = probe.runs;
  CHECK_THROWS_AS(run_once(manager, kKey, probe), std::logic_error);
  CHECK(probe.runs == runs);
  CHECK(log.step_recordings == 1);  // never tried again
  // Eager from now on, and forward() counts again: the network is no longer part of a step.
  const auto eager = manager.counters().eager;
  manager.forward(batch(2));
  CHECK(manager.counters().eager == eager + 1);
}

TEST_CASE("whole-step capture: a capture change announced by the model drops the step graphs") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  for (int i = 0; i < 4; ++i) run_once(manager, kKey, probe);
  REQUIRE(log.step_graphs_alive == 1);
  model.change_computation("the L1 loss turns on");
  int ran = 0;
  CHECK(run_once(manager, kKey, probe, &ran) == StepRun::eager);
  CHECK(ran == 1);
  CHECK(log.step_graphs_alive == 0);
  CHECK(manager.graph_memory_gb() == 0.0);
  CHECK(manager.counters().invalidations == 1);
  CHECK(run_once(manager, kKey, probe) == StepRun::eager);
  CHECK(run_once(manager, kKey, probe) == StepRun::recorded);  // three sightings since the change
  CHECK(run_once(manager, kKey, probe) == StepRun::replayed);
  CHECK(log.step_recordings == 2);
  CHECK(log.step_graphs_alive == 1);
  CHECK(manager.whole_step());
}

TEST_CASE("whole-step capture: invalidate() drops the step graphs too") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<StepRecorder>(log));
  StepProbe probe;
  for (int i = 0; i < 3; ++i) run_once(manager, kKey, probe);
  REQUIRE(log.step_graphs_alive == 1);
  manager.invalidate("the schedule turns mosaic off");
  CHECK(log.step_graphs_alive == 0);
  CHECK(manager.counters().invalidations == 1);
  CHECK(run_once(manager, kKey, probe) == StepRun::eager);
  CHECK(manager.whole_step());
}

TEST_CASE("whole-step capture: a refusal captures the network region instead") {
  TinyDetector model;
  RecorderLog log;
  auto request = step_requested();
  request.whole_step_refusal = "multi_scale=true gives batches of several sizes";
  CaptureManager manager(request, model, std::make_unique<StepRecorder>(log));
  CHECK_FALSE(manager.whole_step());
  CHECK(manager.active());
  for (int i = 0; i < 2; ++i) manager.forward(batch(2));
  CHECK(log.region_recordings == 0);
  manager.forward(batch(2));
  CHECK(log.region_recordings == 1);
  manager.forward(batch(2));
  CHECK(log.region_runs == 2);  // the recording's own run, then one replay
  CHECK(manager.counters().captures == 1);
  CHECK(manager.counters().replays == 1);
  CHECK(manager.counters().eager == 2);
  StepProbe probe;
  CHECK_THROWS_AS(run_once(manager, kKey, probe), std::logic_error);
  CHECK(log.step_recordings == 0);
}

TEST_CASE("whole-step capture: run_step outside whole-step mode is a logic error") {
  TinyDetector model;
  RecorderLog log;
  StepProbe probe;
  SUBCASE("cuda_graph=false") {
    auto request = step_requested();
    request.cuda_graph = false;
    CaptureManager manager(request, model, std::make_unique<StepRecorder>(log));
    CHECK_FALSE(manager.whole_step());
    CHECK_THROWS_AS(run_once(manager, kKey, probe), std::logic_error);
  }
  SUBCASE("the network region") {
    auto request = step_requested();
    request.region = sdk::CaptureRegion::network;
    CaptureManager manager(request, model, std::make_unique<StepRecorder>(log));
    CHECK(manager.active());
    CHECK_FALSE(manager.whole_step());
    CHECK_THROWS_AS(run_once(manager, kKey, probe), std::logic_error);
  }
  SUBCASE("training on the CPU") {
    auto request = step_requested();
    request.cuda_device = false;
    CaptureManager manager(request, model, std::make_unique<StepRecorder>(log));
    CHECK_FALSE(manager.whole_step());
    CHECK_THROWS_AS(run_once(manager, kKey, probe), std::logic_error);
  }
  CHECK(probe.runs == 0);
  CHECK(log.step_recordings == 0);
}

TEST_CASE("whole-step capture: a recorder without record_step falls back at the first recording") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(step_requested(), model, std::make_unique<RegionRecorder>(log));
  REQUIRE(manager.whole_step());
  StepProbe probe;
  for (int i = 0; i < 2; ++i) CHECK(run_once(manager, kKey, probe) == StepRun::eager);
  int ran = 0;
  CHECK(run_once(manager, kKey, probe, &ran) == StepRun::fell_back);
  CHECK(ran == 1);  // GraphRecorder::record_step runs the step before it gives up
  CHECK(probe.abandoned == 1);
  CHECK(log.region_recordings == 0);
  CHECK_FALSE(manager.whole_step());
  CHECK(manager.counters().failures == 1);
}
