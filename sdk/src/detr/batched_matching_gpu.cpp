// Batched matching on the GPU in a CUDA build: the step's GT counts go up through pinned memory
// (asynchronously), the kernel of cuda/assignment_kernels.cu solves every matrix on the current
// stream, and nothing waits: the loss that gathers the matches is queued behind it.
#include "batched_matching_gpu.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include <limits>

#include "cuda/assignment_kernels.hpp"

namespace libreyolo::sdk::detr {
namespace {

// The kernel indexes a matrix's entries and its working arrays with int.
constexpr int64_t kLargestSide = 1 << 20;

torch::Tensor counts_on_device(const std::vector<int64_t>& gt_counts, const torch::Device& device) {
  auto host = torch::empty({static_cast<int64_t>(gt_counts.size())}, torch::TensorOptions().dtype(torch::kInt64).pinned_memory(true));
  std::copy(gt_counts.begin(), gt_counts.end(), host.data_ptr<int64_t>());
  // From pinned memory: queued, not waited for (the caching host allocator keeps the buffer
  // until the copy has run).
  return host.to(device, /*non_blocking=*/true);
}

}  // namespace

std::string gpu_matching_refusal(const torch::Tensor& cost) {
  if (!cost.is_cuda()) return "the cost is on " + cost.device().str() + ", not a CUDA device";
  if (cost.size(1) > kLargestSide || cost.size(2) > kLargestSide || cost.size(1) * cost.size(2) > kLargestSide * 64)
    return "the matrices are larger than the kernel indexes (" + std::to_string(cost.size(1)) + " x " +
           std::to_string(cost.size(2)) + ")";
  if (cost.size(0) > std::numeric_limits<int>::max()) return "more matrices than one launch takes";
  return "";
}

torch::Tensor match_batched_gpu(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts) {
  const c10::cuda::CUDAGuard guard(cost.device());
  torch::NoGradGuard no_grad;
  const int64_t n = cost.size(0), q = cost.size(1), m = cost.size(2);
  auto result = torch::full({n, q}, -1, cost.options().dtype(torch::kInt64));
  if (result.numel() == 0 || m == 0) return result;
  const auto values = cost.detach().to(torch::kFloat32).contiguous();
  const auto counts = counts_on_device(gt_counts, cost.device());
  const int64_t workspace_bytes = fused::assignment_workspace_bytes(n, q, m);
  torch::Tensor workspace;
  if (workspace_bytes > 0) workspace = torch::empty({workspace_bytes}, cost.options().dtype(torch::kUInt8));
  const int code = fused::solve_assignments(values.data_ptr<float>(), counts.data_ptr<int64_t>(), n, q, m,
                                            result.data_ptr<int64_t>(),
                                            workspace.defined() ? workspace.data_ptr() : nullptr,
                                            at::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(code == 0, "match_batched: the GPU assignment kernel did not launch: ", fused::assignment_error_text(code));
  return result;
}

}  // namespace libreyolo::sdk::detr
