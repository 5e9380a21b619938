// LaggedDeviceRead: a watched device value comes back without the host waiting for the device.
#include "../torch_doctest.hpp"

#include "libreyolo/core/profiler/host_sync_counter.hpp"
#include "libreyolo/core/trainer/lagged_device_read.hpp"

#include <torch/torch.h>

using libreyolo::core::trainer::LaggedDeviceRead;

TEST_CASE("LaggedDeviceRead: nothing before a request, the value once, the latest request wins") {
  LaggedDeviceRead read;
  CHECK_FALSE(read.take().has_value());
  read.request(torch::tensor({3.0f}));
  read.request(torch::tensor({5.0f}));
  const auto value = read.take();
  REQUIRE(value.has_value());
  CHECK(*value == 5.0);
  CHECK_FALSE(read.take().has_value());  // taken: a second take waits for a new request
  CHECK_THROWS(read.request(torch::zeros({2})));
}

TEST_CASE("LaggedDeviceRead on a GPU: requesting adds no host synchronisation; the value lands") {
  if (!torch::cuda::is_available()) {
    MESSAGE("skipped: no CUDA device");
    return;
  }
  const auto value = torch::full({}, 7.0f, torch::kCUDA);
  LaggedDeviceRead read;
  libreyolo::core::profiler::HostSyncCounter syncs(0);
  syncs.resume();
  read.request(value);
  (void)read.take();  // may or may not have landed yet; must not wait either way
  syncs.pause();
  CHECK(syncs.count() == 0);
  read.request(value * 2);
  torch::cuda::synchronize();
  const auto landed = read.take();
  REQUIRE(landed.has_value());
  CHECK(*landed == 14.0);
}
