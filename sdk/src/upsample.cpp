#include "libreyolo/sdk/upsample.hpp"

#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/torch.h>

#include <vector>

#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {

torch::Tensor upsample_nearest_2x(const torch::Tensor& x) {
  const std::vector<int64_t> size{2 * x.size(2), 2 * x.size(3)};
  if (!fused_kernel_allowed("half_upsample")) return torch::upsample_nearest2d(x, size);
  // Autocast's dispatch keys left out for this one op: it runs on x as given (autograd still
  // records it, and the surrounding autocast region is untouched).
  const c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
  return torch::upsample_nearest2d(x, size);
}

}  // namespace libreyolo::sdk
