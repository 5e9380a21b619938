#include "libreyolo/sdk/fused_kernels.hpp"

#include <atomic>
#include <cstring>
#include <mutex>

namespace libreyolo::sdk {
namespace {
std::atomic<FusedKernels> policy{FusedKernels::off};
std::mutex only_mutex;
std::string only_kernel;  // guarded by only_mutex; set before a model is built
}  // namespace

void set_fused_kernels(FusedKernels value, const std::string& only) {
  {
    const std::lock_guard<std::mutex> lock(only_mutex);
    only_kernel = only;
  }
  policy.store(value);
}

FusedKernels fused_kernels() { return policy.load(); }

bool fused_kernel_allowed(const char* name) {
  const auto now = policy.load();
  if (now == FusedKernels::off) return false;
  if (now == FusedKernels::measured) {
    for (const char* faster : kMeasuredFasterKernels)
      if (std::strcmp(faster, name) == 0) return true;
    return false;
  }
  const std::lock_guard<std::mutex> lock(only_mutex);
  return only_kernel.empty() || only_kernel == name;
}

bool fused_kernels_built() {
#ifdef LIBREYOLO_SDK_FUSED_KERNELS
  return true;
#else
  return false;
#endif
}

}  // namespace libreyolo::sdk
