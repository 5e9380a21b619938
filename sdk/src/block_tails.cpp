// The block tails: the composed ops, and the choice of the fused kernels (block_tails_fused.hpp)
// under the fused_kernels policy.
#include "libreyolo/sdk/block_tails.hpp"

#include <torch/torch.h>

#include <mutex>

#include "block_tails_fused.hpp"
#include "fused_choice_log.hpp"
#include "libreyolo/sdk/batch_norm_silu.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::sdk {
namespace {

// The policy and the inputs decide; the first decision is logged once (both tails share it: one
// policy name, one kind of input).
bool fused_chosen(const torch::Tensor& a, const torch::Tensor& b) {
  if (!fused_kernel_allowed("block_tails")) return false;
  const auto refusal = block_tail_refusal(a, b);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: the blocks' add + SiLU tails run the fused CUDA kernels",
                         "fused_kernels: the blocks' add + SiLU tails run PyTorch's");
  return refusal.empty();
}

}  // namespace

std::string block_tail_refusal(const torch::Tensor& a, const torch::Tensor& b) {
  if (auto unavailable = fused_block_tails_unavailable(); !unavailable.empty()) return unavailable;
  if (!a.is_cuda() || b.device() != a.device()) return "the tensors are not on one CUDA device";
  if (a.scalar_type() != torch::kFloat16 && a.scalar_type() != torch::kFloat32)
    return "the kernels take float16 or float32";
  if (b.scalar_type() != a.scalar_type()) return "the tensors' types differ (the composed ops promote)";
  if (b.sizes() != a.sizes()) return "the tensors' shapes differ (the composed ops broadcast)";
  if (a.numel() == 0) return "the tensors are empty";
  if (!a.is_non_overlapping_and_dense() || b.strides() != a.strides())
    return "the tensors are not dense in one layout";
  return "";
}

torch::Tensor add_silu(const torch::Tensor& a, const torch::Tensor& b) {
  if (fused_chosen(a, b)) return fused_add_silu(a, b);
  return torch::silu(a + b);
}

torch::Tensor silu_add(const torch::Tensor& x, const torch::Tensor& residual) {
  if (fused_chosen(x, residual)) return fused_silu_add(x, residual);
  return torch::silu(x) + residual;
}

torch::Tensor batch_norm_silu_add(BatchNorm2d& bn, const torch::Tensor& x, const torch::Tensor& residual) {
  // The fused BatchNorm + SiLU already writes the activation once; it keeps its kernel.
  if (fused_kernel_allowed("batch_norm_silu") && batch_norm_silu_refusal(*bn, x).empty())
    return batch_norm_silu(bn, x) + residual;
  return silu_add(bn->forward(x), residual);
}

}  // namespace libreyolo::sdk
