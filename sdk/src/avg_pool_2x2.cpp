// avg_pool_2x2: the composed pool, and the choice of the fused kernel (avg_pool_2x2_fused.hpp)
// under the fused_kernels policy.
#include "libreyolo/sdk/avg_pool_2x2.hpp"

#include <torch/torch.h>

#include <mutex>

#include "avg_pool_2x2_fused.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/log.hpp"
#include "fused_choice_log.hpp"

namespace libreyolo::sdk {
namespace {

// The policy and the input decide; the first decision is logged once.
bool fused_chosen(const torch::Tensor& x) {
  if (!fused_kernel_allowed("avg_pool_2x2")) return false;
  const auto refusal = avg_pool_2x2_refusal(x);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: the 2x2 average pool runs the fused CUDA kernel",
                         "fused_kernels: the 2x2 average pool runs PyTorch's");
  return refusal.empty();
}

}  // namespace

std::string avg_pool_2x2_refusal(const torch::Tensor& x) {
  if (auto unavailable = fused_avg_pool_2x2_unavailable(); !unavailable.empty()) return unavailable;
  if (!x.is_cuda()) return "x is not on a CUDA device";
  if (x.dim() != 4 || (x.scalar_type() != torch::kFloat32 && x.scalar_type() != torch::kFloat16))
    return "the kernel takes 4-D float16 or float32";
  if (!x.is_contiguous() && !x.is_contiguous(torch::MemoryFormat::ChannelsLast))
    return "x is neither contiguous NCHW nor channels-last";
  if (x.size(0) == 0 || x.size(1) == 0 || x.size(2) < 2 || x.size(3) < 2) return "x is empty or smaller than the window";
  return "";
}

torch::Tensor avg_pool_2x2(const torch::Tensor& x) {
  if (fused_chosen(x)) return fused_avg_pool_2x2(x);
  // F.avg_pool2d(x, 2, 1, 0, ceil_mode=False, count_include_pad=True): no padding, so every
  // window holds 4 values whatever count_include_pad says.
  return torch::avg_pool2d(x, {2, 2}, {1, 1}, {0, 0}, false, true);
}

}  // namespace libreyolo::sdk
