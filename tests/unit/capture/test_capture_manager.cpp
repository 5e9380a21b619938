// The capture manager's decisions, fallbacks and invalidation, with a recorder that "records"
// by running the region eagerly: no GPU needed.
#include "../torch_doctest.hpp"

#include <stdexcept>

#include "libreyolo/core/capture/capture_manager.hpp"
#include "libreyolo/sdk/batch_count.hpp"
#include "libreyolo/sdk/batch_norm.hpp"
#include "libreyolo/sdk/detector.hpp"
#include "tiny_detector.hpp"

using namespace libreyolo;
using namespace libreyolo::core::capture;

namespace {

using test::TinyDetector;

struct RecorderLog {
  int recordings = 0, runs = 0, graphs_alive = 0;
  bool fail_recording = false, fail_replay = false;
  std::size_t parameters = 0, buffers = 0;
};

class FakeGraph : public RegionGraph {
 public:
  FakeGraph(RecorderLog& log, RegionFunction region) : log_(log), region_(std::move(region)) { ++log_.graphs_alive; }
  ~FakeGraph() override { --log_.graphs_alive; }
  std::vector<torch::Tensor> run(const torch::Tensor& images) override {
    if (log_.fail_replay) throw std::runtime_error("replay broke\nbacktrace lines");
    ++log_.runs;
    return region_(images);
  }
  double pinned_gb() const override { return 0.5; }

 private:
  RecorderLog& log_;
  RegionFunction region_;
};

class FakeRecorder : public GraphRecorder {
 public:
  explicit FakeRecorder(RecorderLog& log) : log_(log) {}
  std::unique_ptr<RegionGraph> record(const RegionFunction& region, const torch::Tensor&,
                                      const std::vector<torch::Tensor>& parameters,
                                      const std::vector<torch::Tensor>& buffers) override {
    ++log_.recordings;
    log_.parameters = parameters.size();
    log_.buffers = buffers.size();
    if (log_.fail_recording) throw std::runtime_error("operation not permitted when stream is capturing");
    return std::make_unique<FakeGraph>(log_, region);
  }

 private:
  RecorderLog& log_;
};

CaptureRequest requested() {
  CaptureRequest request;
  request.cuda_graph = true;
  request.cuda_device = true;
  request.family = "tiny";
  return request;
}

torch::Tensor batch(int n) { return torch::ones({n, 3, 8, 8}); }

}  // namespace

TEST_CASE("capture manager: refusals are named, and each means eager") {
  auto request = requested();
  CHECK(capture_refusal(request, true).empty());
  CHECK(capture_refusal(request, false) == "this build has no CUDA support");
  request.cuda_device = false;
  CHECK(capture_refusal(request, true).find("training runs on the CPU") != std::string::npos);
  request = requested();
  request.region = sdk::CaptureRegion::none;
  CHECK(capture_refusal(request, true) == "family tiny declares no capturable region");
  request = requested();
  request.world_size = 2;
  CHECK(capture_refusal(request, true).find("distributed") != std::string::npos);

  TinyDetector model;
  RecorderLog log;
  request.world_size = 2;
  CaptureManager manager(request, model, std::make_unique<FakeRecorder>(log));
  CHECK_FALSE(manager.active());
  for (int i = 0; i < 5; ++i) manager.forward(batch(2));
  CHECK(log.recordings == 0);
  CHECK(manager.counters().eager == 5);
}

TEST_CASE("capture manager: cuda_graph=false never records") {
  TinyDetector model;
  RecorderLog log;
  auto request = requested();
  request.cuda_graph = false;
  CaptureManager manager(request, model, std::make_unique<FakeRecorder>(log));
  CHECK_FALSE(manager.active());
  for (int i = 0; i < 4; ++i) manager.forward(batch(2));
  CHECK(log.recordings == 0);
  CHECK(model.eager_forwards == 4);
}

TEST_CASE("capture manager: records on the third sighting, replays after, other shapes eager") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(requested(), model, std::make_unique<FakeRecorder>(log));
  REQUIRE(manager.active());
  const auto expected = model.forward_capturable(batch(2))[0];
  for (int i = 0; i < 2; ++i) manager.forward(batch(2));
  CHECK(log.recordings == 0);
  const auto captured = manager.forward(batch(2));
  CHECK(log.recordings == 1);
  CHECK(log.parameters == 2);  // conv weight and bias: what the backward graph differentiates
  CHECK(torch::equal(captured[0], expected));
  for (int i = 0; i < 3; ++i) manager.forward(batch(2));
  CHECK(log.runs == 4);  // the capture's own step plus three replays
  manager.forward(batch(1));  // an epoch's short last batch
  CHECK(manager.counters().replays == 3);
  CHECK(manager.counters().captures == 1);
  CHECK(manager.counters().eager == 3);
}

TEST_CASE("capture manager: graphs are per images shape and region key (a DETR's padded query count)") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(requested(), model, std::make_unique<FakeRecorder>(log));
  for (int i = 0; i < 3; ++i) manager.forward(batch(2), {200});
  CHECK(log.recordings == 1);
  manager.forward(batch(2), {200});
  CHECK(manager.counters().replays == 1);
  // Another key with the same images shape is another graph, counted afresh.
  for (int i = 0; i < 2; ++i) manager.forward(batch(2), {240});
  CHECK(log.recordings == 1);
  CHECK(manager.counters().eager == 4);
  manager.forward(batch(2), {240});
  CHECK(log.recordings == 2);
  manager.forward(batch(2), {200});
  CHECK(manager.counters().replays == 2);
}

TEST_CASE("capture manager: a family's announcement drops the graphs; recapture after three repeats") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(requested(), model, std::make_unique<FakeRecorder>(log));
  for (int i = 0; i < 4; ++i) manager.forward(batch(2));
  CHECK(log.graphs_alive == 1);
  model.change_computation("the L1 loss turns on");
  manager.forward(batch(2));
  CHECK(log.graphs_alive == 0);
  CHECK(manager.counters().invalidations == 1);
  manager.forward(batch(2));
  CHECK(log.recordings == 1);
  manager.forward(batch(2));
  CHECK(log.recordings == 2);
  CHECK(log.graphs_alive == 1);
  CHECK(manager.active());
}

TEST_CASE("capture manager: a failed recording degrades the rest of the run to eager") {
  TinyDetector model;
  RecorderLog log;
  log.fail_recording = true;
  CaptureManager manager(requested(), model, std::make_unique<FakeRecorder>(log));
  const auto expected = model.forward_capturable(batch(2))[0];
  std::vector<torch::Tensor> out;
  for (int i = 0; i < 3; ++i) out = manager.forward(batch(2));
  CHECK(torch::equal(out[0], expected));  // the failing step still got its outputs
  CHECK_FALSE(manager.active());
  CHECK(manager.counters().failures == 1);
  for (int i = 0; i < 5; ++i) manager.forward(batch(2));
  CHECK(log.recordings == 1);  // never tried again
}

TEST_CASE("capture manager: a failed replay releases the graphs and goes eager") {
  TinyDetector model;
  RecorderLog log;
  CaptureManager manager(requested(), model, std::make_unique<FakeRecorder>(log));
  for (int i = 0; i < 3; ++i) manager.forward(batch(2));
  REQUIRE(log.graphs_alive == 1);
  log.fail_replay = true;
  const auto out = manager.forward(batch(2));
  CHECK(out.size() == 1);
  CHECK(log.graphs_alive == 0);
  CHECK_FALSE(manager.active());
  CHECK(manager.counters().failures == 1);
}

namespace {

// A region with one of the SDK's BatchNorm layers, which leaves its step counter to the
// manager's deferral (sdk/batch_count.hpp).
class NormDetector : public sdk::Detector {
 public:
  NormDetector() { bn_ = register_module("bn", sdk::BatchNorm2d(torch::nn::BatchNorm2dOptions(3).momentum(0.03))); }
  std::vector<torch::Tensor> forward_capturable(const torch::Tensor& images) override { return {bn_(images)}; }
  sdk::Candidates decode(const std::vector<torch::Tensor>&) override { return {}; }
  int64_t counted() const { return bn_->num_batches_tracked.item<int64_t>(); }

 private:
  sdk::BatchNorm2d bn_{nullptr};
};

}  // namespace

TEST_CASE("capture manager: BatchNorm's step counters move inside the region, once per forward, eager or recorded") {
  NormDetector model;
  model.train();
  RecorderLog log;
  CaptureManager manager(requested(), model, std::make_unique<FakeRecorder>(log));
  const auto images = torch::randn({2, 3, 8, 8});
  for (int i = 1; i <= 6; ++i) {
    manager.forward(images);  // 2 eager, the capture's own run, then replays of the recorded function
    CHECK(model.counted() == i);  // flushed before forward() returned: inside what a graph records
    CHECK_FALSE(sdk::batch_counts_deferred());
  }
  CHECK(manager.counters().replays == 3);
}
