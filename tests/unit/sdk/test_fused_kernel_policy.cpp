// The fused_kernels policy (sdk/fused_kernels.hpp): which kernels each setting lets run. The
// default (`measured`) is the measured list only; `when_built` with a name, that kernel alone.
#include <doctest/doctest.h>

#include <libreyolo/sdk/fused_kernels.hpp>

#include <algorithm>
#include <string>

namespace sdk = libreyolo::sdk;

namespace {
struct PolicyGuard {  // the policy is process-wide: leave it as found
  sdk::FusedKernels before = sdk::fused_kernels();
  PolicyGuard(sdk::FusedKernels policy, const std::string& only) { sdk::set_fused_kernels(policy, only); }
  ~PolicyGuard() { sdk::set_fused_kernels(before); }
};
}  // namespace

TEST_CASE("fused_kernels policy: measured allows the measured list only, a name allows that kernel alone") {
  {
    const PolicyGuard measured(sdk::FusedKernels::measured, "");
    for (const char* name : {"avg_pool_2x2", "max_pool_same", "linear_assignment", "deform_sampling", "weight_casts",
                             "task_aligned_metric", "task_aligned_selection", "simota_cost", "simota_selection",
                             "weight_grad_stream", "block_tails", "dense_slices", "box_dfl_loss", "class_bce",
                             "half_upsample", "small_convolutions", "image_convolutions"})
      CHECK_MESSAGE(sdk::fused_kernel_allowed(name), name);
    CHECK_FALSE(sdk::fused_kernel_allowed("batch_norm_silu"));  // measured slower
    CHECK_FALSE(sdk::fused_kernel_allowed("branch_streams"));   // measured slower
    CHECK_FALSE(sdk::fused_kernel_allowed("level_streams"));    // measured no faster
    CHECK_FALSE(sdk::fused_kernel_allowed("stacked_convolutions"));  // measured slower
    CHECK_FALSE(sdk::fused_kernel_allowed("native_batch_norm"));     // measured: slower for YOLOX-s
    CHECK_FALSE(sdk::fused_kernel_allowed("alternate_step_graphs"));  // not measured yet
    CHECK_FALSE(sdk::fused_kernel_allowed("batch_norm_silu_cluster"));  // measured slower
    CHECK_FALSE(sdk::fused_kernel_allowed("batch_norm_silu_large"));  // memorisation lower with it
    CHECK_FALSE(sdk::fused_kernel_allowed("small_convolutions_wide"));  // 24 and 32 channels slower
    CHECK_FALSE(sdk::fused_kernel_allowed("aligned_channels"));  // learning check undecided
    CHECK_FALSE(sdk::fused_kernel_allowed("cudnn_batch_norm_silu"));  // measured slower (0.98x)
    const auto& known = sdk::fused_kernel_names();
    for (const std::string& name : sdk::measured_faster_kernels())
      CHECK_MESSAGE(std::find(known.begin(), known.end(), name) != known.end(), name);
  }
  {
    const PolicyGuard off(sdk::FusedKernels::off, "");
    for (const std::string& name : sdk::fused_kernel_names()) CHECK_FALSE_MESSAGE(sdk::fused_kernel_allowed(name.c_str()), name);
  }
  {
    const PolicyGuard one(sdk::FusedKernels::when_built, "linear_assignment");
    for (const std::string& name : sdk::fused_kernel_names())
      CHECK_MESSAGE(sdk::fused_kernel_allowed(name.c_str()) == (std::string(name) == "linear_assignment"), name);
  }
  {
    const PolicyGuard every(sdk::FusedKernels::when_built, "");
    for (const std::string& name : sdk::fused_kernel_names()) CHECK_MESSAGE(sdk::fused_kernel_allowed(name.c_str()), name);
  }
}

TEST_CASE("fused_kernels policy: names joined by + allow those alone, or add them to the measured list") {
  {
    const PolicyGuard two(sdk::FusedKernels::when_built, "simota_cost+simota_selection");
    for (const std::string& name : sdk::fused_kernel_names()) {
      const std::string n = name;
      CHECK_MESSAGE(sdk::fused_kernel_allowed(name.c_str()) == (n == "simota_cost" || n == "simota_selection"), name);
    }
  }
  {
    const PolicyGuard more(sdk::FusedKernels::measured, "batch_norm_silu");
    CHECK(sdk::fused_kernel_allowed("batch_norm_silu"));
    CHECK(sdk::fused_kernel_allowed("task_aligned_metric"));  // measured
    CHECK(sdk::fused_kernel_allowed("linear_assignment"));
  }
  {
    const PolicyGuard plain(sdk::FusedKernels::measured, "");
    CHECK_FALSE(sdk::fused_kernel_allowed("batch_norm_silu"));
  }
}
