// The fused_kernels policy (sdk/fused_kernels.hpp): which kernels each setting lets run. The
// default (`measured`) is the measured list only; `when_built` with a name, that kernel alone.
#include <doctest/doctest.h>

#include <libreyolo/sdk/fused_kernels.hpp>

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
    for (const char* name :
         {"avg_pool_2x2", "max_pool_same", "linear_assignment", "deform_sampling", "weight_casts", "task_aligned_metric"})
      CHECK_MESSAGE(sdk::fused_kernel_allowed(name), name);
    CHECK_FALSE(sdk::fused_kernel_allowed("batch_norm_silu"));
  }
  {
    const PolicyGuard off(sdk::FusedKernels::off, "");
    for (const char* name : sdk::kFusedKernelNames) CHECK_FALSE_MESSAGE(sdk::fused_kernel_allowed(name), name);
  }
  {
    const PolicyGuard one(sdk::FusedKernels::when_built, "linear_assignment");
    for (const char* name : sdk::kFusedKernelNames)
      CHECK_MESSAGE(sdk::fused_kernel_allowed(name) == (std::string(name) == "linear_assignment"), name);
  }
  {
    const PolicyGuard every(sdk::FusedKernels::when_built, "");
    for (const char* name : sdk::kFusedKernelNames) CHECK_MESSAGE(sdk::fused_kernel_allowed(name), name);
  }
}
