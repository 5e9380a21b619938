#include "libreyolo/sdk/fused_kernels.hpp"

#include <atomic>

namespace libreyolo::sdk {
namespace {
std::atomic<FusedKernels> policy{FusedKernels::off};
}

void set_fused_kernels(FusedKernels value) { policy.store(value); }
FusedKernels fused_kernels() { return policy.load(); }

bool fused_kernels_built() {
#ifdef LIBREYOLO_SDK_FUSED_KERNELS
  return true;
#else
  return false;
#endif
}

}  // namespace libreyolo::sdk
