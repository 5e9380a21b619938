// max_pool_same: the composed pool, and the choice of the fused kernel (max_pool_same_fused.hpp)
// under the fused_kernels policy.
#include "libreyolo/sdk/max_pool_same.hpp"

#include <torch/torch.h>

#include <mutex>

#include "libreyolo/sdk/fused_kernels.hpp"
#include "libreyolo/sdk/log.hpp"
#include "max_pool_same_fused.hpp"
#include "fused_choice_log.hpp"

namespace libreyolo::sdk {
namespace {

// The policy and the input decide; the first decision is logged once.
bool fused_chosen(const torch::Tensor& x, int64_t kernel) {
  if (!fused_kernel_allowed("max_pool_same")) return false;
  const auto refusal = max_pool_same_refusal(x, kernel);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: the same-size max pool runs the fused CUDA kernel",
                         "fused_kernels: the same-size max pool runs PyTorch's");
  return refusal.empty();
}

}  // namespace

std::string max_pool_same_refusal(const torch::Tensor& x, int64_t kernel) {
  if (auto unavailable = fused_max_pool_same_unavailable(); !unavailable.empty()) return unavailable;
  if (kernel < 1 || kernel > 15 || kernel % 2 == 0) return "the kernel takes odd window sizes from 1 to 15";
  if (!x.is_cuda()) return "x is not on a CUDA device";
  if (x.dim() != 4 || (x.scalar_type() != torch::kFloat32 && x.scalar_type() != torch::kFloat16))
    return "the kernel takes 4-D float16 or float32";
  if (!x.is_contiguous(torch::MemoryFormat::ChannelsLast)) return "x is not channels-last";
  if (x.numel() == 0) return "x is empty";
  return "";
}

torch::Tensor max_pool_same(const torch::Tensor& x, int64_t kernel) {
  if (fused_chosen(x, kernel)) return fused_max_pool_same(x, kernel);
  return torch::max_pool2d(x, {kernel, kernel}, {1, 1}, {kernel / 2, kernel / 2});
}

}  // namespace libreyolo::sdk
