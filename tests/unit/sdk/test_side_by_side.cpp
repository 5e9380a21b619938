// side_by_side (sdk/side_by_side.hpp, fused_kernels=branch_streams). On every build: the branches
// run one after the other, in order, each once, without the policy, the host's permission or
// CUDA inputs, and the refusal says which. On a GPU: YOLOv9-t's and YOLOX-s's outputs and
// gradients with their branches on side streams equal one stream's bit for bit, eager and inside
// the whole-step graph.
#include "../torch_doctest.hpp"
#include "../deterministic_cudnn.hpp"
#include "../gpu_training_pass.hpp"
#include "../model_on_gpu.hpp"

#include <torch/cuda.h>

#include <libreyolo/sdk/fused_kernels.hpp>
#include <libreyolo/sdk/side_by_side.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "libreyolo/core/capture/capture_manager.hpp"
#include "capture/whole_step_request.hpp"
#include "yolo9_detector.hpp"
#include "yolox_detector.hpp"

using namespace libreyolo;
using namespace libreyolo::core;

namespace {

// The policy and the permission are process-wide: leave them as found (nothing permits by default).
struct BranchStreams {
  sdk::FusedKernels before = sdk::fused_kernels();
  BranchStreams(sdk::FusedKernels policy, const std::string& only, int device) {
    sdk::set_fused_kernels(policy, only);
    sdk::permit_branch_streams(device);
  }
  ~BranchStreams() {
    sdk::permit_branch_streams(-1);
    sdk::set_fused_kernels(before);
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("side_by_side: one after the other, in order, each branch once, where streams are refused") {
  const BranchStreams on(sdk::FusedKernels::when_built, "branch_streams", -1);
  const auto x = torch::arange(4.0);
  std::vector<int> ran;
  const auto outputs = sdk::side_by_side({x}, {[&] { ran.push_back(0); return x + 1; },
                                               [&] { ran.push_back(1); return x * 2; },
                                               [&] { ran.push_back(2); return x - 3; }});
  CHECK(ran == std::vector<int>{0, 1, 2});
  REQUIRE(outputs.size() == 3);
  CHECK(torch::equal(outputs[0], x + 1));
  CHECK(torch::equal(outputs[1], x * 2));
  CHECK(torch::equal(outputs[2], x - 3));
  CHECK_THROWS_AS(sdk::side_by_side({x}, {}), std::invalid_argument);
}

TEST_CASE("ForkPoint: where streams are refused a branch runs when started; join hands its output over once") {
  const BranchStreams on(sdk::FusedKernels::when_built, "branch_streams", -1);
  const auto x = torch::arange(3.0);
  std::vector<std::string> ran;
  const sdk::ForkPoint point({x}, sdk::BranchScope::level);
  ran.push_back("caller");
  auto branch = point.start([&] {
    ran.push_back("branch");
    return x * 10;
  });
  CHECK(ran == std::vector<std::string>{"caller", "branch"});
  CHECK(torch::equal(branch.join(), x * 10));
  CHECK_THROWS_AS(branch.join(), std::logic_error);
}

TEST_CASE("side_by_side: the refusal names the policy, the build or the permission, in that order") {
  const auto cpu = torch::zeros({2});
  {
    const BranchStreams off(sdk::FusedKernels::off, "", -1);
    CHECK(has(sdk::branch_streams_refusal({cpu}), "fused_kernels does not allow branch_streams"));
  }
  {
    const BranchStreams other(sdk::FusedKernels::when_built, "avg_pool_2x2", -1);
    CHECK(has(sdk::branch_streams_refusal({cpu}), "fused_kernels does not allow branch_streams"));
    CHECK(has(sdk::branch_streams_refusal({cpu}, sdk::BranchScope::level),
              "fused_kernels does not allow branch_streams or level_streams"));
    CHECK_FALSE(sdk::branch_streams_requested());
  }
  {
    // level_streams: the level scope passes the policy (the next refusal is the build's or the
    // host's), the block scope does not.
    const BranchStreams levels(sdk::FusedKernels::when_built, "level_streams", -1);
    CHECK(sdk::branch_streams_requested());
    CHECK(has(sdk::branch_streams_refusal({cpu}), "fused_kernels does not allow branch_streams"));
    CHECK_FALSE(has(sdk::branch_streams_refusal({cpu}, sdk::BranchScope::level), "fused_kernels"));
  }
  const BranchStreams named(sdk::FusedKernels::measured, "branch_streams", -1);
  const auto refusal = sdk::branch_streams_refusal({cpu});
  if (!torch::cuda::is_available()) {
    CHECK((has(refusal, "this build has no CUDA") || has(refusal, "permits side streams")));
    return;
  }
  CHECK(has(refusal, "the host permits side streams for training on one CUDA device only"));
  sdk::permit_branch_streams(0);
  CHECK(has(sdk::branch_streams_refusal({cpu}), "an input is not on the permitted CUDA device"));
  CHECK(has(sdk::branch_streams_refusal({}), "the branches name no input"));
  const auto x = torch::arange(4.0, torch::kCUDA);
  CHECK(sdk::branch_streams_refusal({x}).empty());
  std::vector<int> ran;  // on side streams too, the branches are called in order
  const auto outputs = sdk::side_by_side({x}, {[&] { ran.push_back(0); return x + 1; },
                                               [&] { ran.push_back(1); return x * 2; },
                                               [&] { ran.push_back(2); return x - 3; }});
  CHECK(ran == std::vector<int>{0, 1, 2});
  CHECK(torch::equal(outputs[1].cpu(), torch::arange(4.0) * 2));
  CHECK(torch::equal(outputs[2].cpu(), torch::arange(4.0) - 3));
}

namespace {

using libreyolo::test::autocast_pass;
using libreyolo::test::differing;
using libreyolo::test::kept_for;
const torch::Device& kCuda = libreyolo::test::kCudaZero;

// The reference runs one after the other (no permission); the model under test runs its branches
// on side streams through the capture manager: eager, recorded, replayed, replayed.
template <typename Detector>
void check_streams_equal_one_stream(const std::string& size) {
  DeterministicCudnn deterministic;
  const BranchStreams on(sdk::FusedKernels::when_built, "branch_streams", -1);
  auto reference = model_on_gpu<Detector>(size);
  auto model = model_on_gpu<Detector>(size);
  const auto probe = torch::rand({4, 3, 256, 256}, kCuda).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto weights = libreyolo::test::output_weights(*model, probe);
  auto images = torch::empty_like(probe);
  auto expected = kept_for(*reference), kept = kept_for(*model);
  capture::CaptureManager manager(whole_step_request(), *model, capture::make_cuda_graph_recorder());
  REQUIRE(manager.whole_step());
  const capture::Shape key = {4, 3, 256, 256, 0, 1, 1};
  const capture::StepRun runs[] = {capture::StepRun::eager, capture::StepRun::recorded, capture::StepRun::replayed,
                                   capture::StepRun::replayed};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    images.copy_(torch::rand_like(probe));
    sdk::permit_branch_streams(-1);
    autocast_pass(*reference, images, weights, expected);
    sdk::permit_branch_streams(0);
    const auto refusal = sdk::branch_streams_refusal({images});
    REQUIRE_MESSAGE(refusal.empty(), refusal);
    const auto how = manager.run_step(key, [&] { autocast_pass(*model, images, weights, kept); }, [] {});
    CHECK(how == runs[i]);
    CHECK(differing(expected, kept) == 0);
  }
  CHECK(manager.counters().captures == 1);
}

}  // namespace

TEST_CASE("side_by_side: YOLOv9-t's loss and gradients with side streams equal one stream's bit for bit") {
  if (!torch::cuda::is_available()) return;
  check_streams_equal_one_stream<families::yolo9::Yolo9Detector>("t");
}

TEST_CASE("side_by_side: YOLOX-s's loss and gradients with side streams equal one stream's bit for bit") {
  if (!torch::cuda::is_available()) return;
  check_streams_equal_one_stream<families::yolox::YoloxDetector>("s");
}
