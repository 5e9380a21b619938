// The NCCL line of a distributed profile: communication time, the part other kernels ran
// beside, and what stayed exposed, on hand-laid timelines.
#include <doctest/doctest.h>

#include "libreyolo/core/profiler/communication_overlap.hpp"
#include "synthetic_window.hpp"

using namespace libreyolo::core::profiler;

namespace {
const char* const kAllReduce = "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
}

TEST_CASE("NCCL's kernels are communication, everything else is not") {
  CHECK(is_communication_kernel(kAllReduce));
  CHECK(is_communication_kernel("ncclKernel_AllReduce_RING_LL_Sum_half(ncclWorkElem)"));
  CHECK_FALSE(is_communication_kernel("void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half>()"));
  CHECK_FALSE(is_communication_kernel("Memset (Device)"));
  CHECK_FALSE(is_communication_kernel("my_nccl_like_kernel"));
}

TEST_CASE("an all-reduce beside backward's kernels is overlapped; one after them is exposed") {
  // One unsynchronised step of 10 ms = [0, 10000) us.
  const auto steps = libreyolo::test::make_steps(1, {0, 10});
  // Backward's kernels on the compute stream: [1000, 6000) us, back to back.
  std::vector<DeviceEvent> kernels = {{"dgrad", 1000, 2000}, {"wgrad", 3000, 3000}};
  // A bucket's all-reduce from 4000 to 7000 us: 2000 us beside wgrad, 1000 us alone.
  kernels.push_back({kAllReduce, 4000, 3000});
  const auto overlap = communication_overlap(steps, kernels);
  CHECK(overlap.steps == 1);
  CHECK(overlap.kernels == 1);
  CHECK(overlap.communication_us == doctest::Approx(3000));
  CHECK(overlap.overlapped_us == doctest::Approx(2000));
  CHECK(overlap.exposed_us() == doctest::Approx(1000));
  CHECK(overlap.overlapped_share() == doctest::Approx(2.0 / 3.0));
}

TEST_CASE("concurrent communication kernels count once; only the unsynchronised steps count") {
  // Two unsynchronised steps of 10 ms, then a synchronised one from 20 to 30 ms.
  const auto steps = libreyolo::test::make_steps(2, {0, 10}, 1);
  std::vector<DeviceEvent> kernels = {
      {"conv", 0, 5000},
      {kAllReduce, 4000, 2000},   // [4000, 6000): 1000 beside conv, 1000 alone
      {kAllReduce, 5000, 2000},   // [5000, 7000): adds [6000, 7000) alone
      {kAllReduce, 9500, 1000},   // crosses into step 2: [9500, 10500), alone, one kernel
      {"conv", 12000, 3000},
      {kAllReduce, 13000, 1000},  // inside conv: all of it overlapped
      {kAllReduce, 25000, 4000},  // the synchronised step: not counted
  };
  const auto overlap = communication_overlap(steps, kernels);
  CHECK(overlap.steps == 2);
  CHECK(overlap.kernels == 4);
  CHECK(overlap.communication_us == doctest::Approx(3000 + 1000 + 1000));
  CHECK(overlap.overlapped_us == doctest::Approx(1000 + 1000));
  CHECK(overlap.exposed_us() == doctest::Approx(3000));
}

TEST_CASE("a window without NCCL kernels (one GPU, or Gloo) has no communication") {
  const auto steps = libreyolo::test::make_steps(3, {1, 9});
  const auto overlap = communication_overlap(steps, libreyolo::test::make_kernels(steps, 20, 100, 1));
  CHECK(overlap.steps == 3);
  CHECK(overlap.kernels == 0);
  CHECK(overlap.communication_us == 0);
  CHECK(overlap.overlapped_share() == 0);
}
