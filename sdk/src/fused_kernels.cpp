#include "libreyolo/sdk/fused_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

namespace libreyolo::sdk {
namespace {
std::atomic<FusedKernels> policy{FusedKernels::off};
std::mutex only_mutex;
std::vector<std::string> only_kernels;  // guarded by only_mutex; set before a model is built

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> parts;
  for (std::string::size_type start = 0; !names.empty();) {
    const auto end = names.find('+', start);
    parts.push_back(names.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

// Whether `name` is one of the kernels set_fused_kernels named (the caller holds only_mutex).
bool named(const char* name) {
  return std::find(only_kernels.begin(), only_kernels.end(), name) != only_kernels.end();
}
}  // namespace

void set_fused_kernels(FusedKernels value, const std::string& only) {
  {
    const std::lock_guard<std::mutex> lock(only_mutex);
    only_kernels = split_names(only);
  }
  policy.store(value);
}

FusedKernels fused_kernels() { return policy.load(); }

bool fused_kernel_allowed(const char* name) {
  const auto now = policy.load();
  if (now == FusedKernels::off) return false;
  if (now == FusedKernels::measured)
    for (const char* faster : kMeasuredFasterKernels)
      if (std::strcmp(faster, name) == 0) return true;
  const std::lock_guard<std::mutex> lock(only_mutex);
  if (now == FusedKernels::measured) return named(name);
  return only_kernels.empty() || named(name);
}

bool fused_kernels_built() {
#ifdef LIBREYOLO_SDK_FUSED_KERNELS
  return true;
#else
  return false;
#endif
}

}  // namespace libreyolo::sdk
