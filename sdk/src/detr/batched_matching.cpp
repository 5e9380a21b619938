// Batched Hungarian matching (see batched_matching.hpp): on the GPU when the fused_kernels policy
// allows the assignment kernel (batched_matching_gpu.cpp), else one host copy, then the matrices
// are shared out to worker threads through an atomic counter, each writing its own result row.
#include "libreyolo/sdk/detr/batched_matching.hpp"

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "batched_matching_gpu.hpp"
#include "libreyolo/sdk/detr/hungarian.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "../fused_choice_log.hpp"

namespace libreyolo::sdk::detr {
namespace {

// Below this many real cost entries in the whole batch a single thread is faster than
// starting workers (a 300 x 100 matrix solves in well under a millisecond; a thread start
// costs tens of microseconds).
constexpr int64_t kEntriesPerExtraThread = 50000;

void check_inputs(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts, const char* caller) {
  const std::string who = caller;
  if (!cost.defined()) throw std::invalid_argument(who + ": cost is an undefined tensor");
  if (cost.dim() != 3)
    throw std::invalid_argument(who + ": cost must be [N, Q, M] (matrices, queries, padded GT), got " +
                                std::to_string(cost.dim()) + " dimensions; stack the step's matrices first");
  if (!cost.is_floating_point())
    throw std::invalid_argument(who + ": cost must be a floating-point tensor, got " +
                                std::string(c10::toString(cost.scalar_type())));
  const int64_t n = cost.size(0), m = cost.size(2);
  if (static_cast<int64_t>(gt_counts.size()) != n)
    throw std::invalid_argument(who + ": gt_counts has " + std::to_string(gt_counts.size()) +
                                " entries but cost has " + std::to_string(n) + " matrices; give one count per matrix");
  for (int64_t i = 0; i < n; ++i) {
    const int64_t g = gt_counts[static_cast<size_t>(i)];
    if (g < 0 || g > m)
      throw std::invalid_argument(who + ": gt_counts[" + std::to_string(i) + "] = " + std::to_string(g) +
                                  " is outside [0, " + std::to_string(m) +
                                  "] (M, the padded GT dimension of cost); a count cannot exceed the padding");
  }
}

int choose_thread_count(int64_t matrices, int64_t entries, int max_threads) {
  if (matrices <= 1) return 1;
  int64_t limit = max_threads > 0 ? max_threads : std::max(1u, std::thread::hardware_concurrency());
  if (max_threads <= 0) limit = std::min<int64_t>(limit, 1 + entries / kEntriesPerExtraThread);
  return static_cast<int>(std::max<int64_t>(1, std::min(limit, matrices)));
}

// Solves every matrix of a contiguous float32 CPU cost into result ([N, Q] int64, all -1).
void solve_all(const torch::Tensor& host_cost, const std::vector<int64_t>& gt_counts, torch::Tensor& result,
               int max_threads) {
  const int64_t n = host_cost.size(0), q = host_cost.size(1), m = host_cost.size(2);
  int64_t entries = 0;
  for (auto g : gt_counts) entries += q * g;
  const int threads = choose_thread_count(n, entries, max_threads);

  const float* cost = host_cost.data_ptr<float>();
  int64_t* out = result.data_ptr<int64_t>();
  std::atomic<int64_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto worker = [&] {
    for (int64_t i = next++; i < n; i = next++) {
      try {
        const auto assignment = solve_linear_assignment(cost + i * q * m, q, gt_counts[static_cast<size_t>(i)], m);
        std::copy(assignment.begin(), assignment.end(), out + i * q);
      } catch (const std::invalid_argument& e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error)
          first_error = std::make_exception_ptr(
              std::invalid_argument("match_batched: matrix " + std::to_string(i) + ": " + e.what()));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();  // the calling thread works too
  for (auto& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
}

torch::Tensor solve_host(const torch::Tensor& host_cost, const std::vector<int64_t>& gt_counts, int max_threads) {
  auto result = torch::full({host_cost.size(0), host_cost.size(1)}, -1, torch::kInt64);
  if (host_cost.numel() > 0) solve_all(host_cost, gt_counts, result, max_threads);
  return result;
}

// The fused_kernels policy and the cost's device decide; the first decision on a CUDA cost is
// logged once per process.
bool gpu_matching_chosen(const torch::Tensor& cost) {
  if (cost.device().is_cpu() || !fused_kernel_allowed("linear_assignment")) return false;
  const auto refusal = gpu_matching_refusal(cost);
  static std::once_flag once;
  log_first_fused_choice(once, refusal, "fused_kernels: Hungarian matching solves on the GPU (no host synchronisation)",
                         "fused_kernels: Hungarian matching solves on host threads");
  return refusal.empty();
}

}  // namespace

torch::Tensor match_batched(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts) {
  check_inputs(cost, gt_counts, "match_batched");
  if (gpu_matching_chosen(cost)) return match_batched_gpu(cost, gt_counts);
  // The one device-to-host copy (and, on CUDA, the one synchronisation) of the step's matching.
  // Into pinned memory from CUDA (a few MB a step: twice as fast as a pageable copy).
  auto host_cost = cost.device().is_cpu()
                       ? cost.detach().to(torch::kFloat32).contiguous()
                       : torch::empty(cost.sizes(), torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
  if (!cost.device().is_cpu()) host_cost.copy_(cost.detach());
  auto result = solve_host(host_cost, gt_counts, 0);
  if (cost.device().is_cpu()) return result;
  // Back through pinned memory, asynchronously: a pageable copy would block the host again.
  return result.pin_memory().to(cost.device(), /*non_blocking=*/true);
}

torch::Tensor match_batched_cpu(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts, int max_threads) {
  check_inputs(cost, gt_counts, "match_batched_cpu");
  if (!cost.device().is_cpu())
    throw std::invalid_argument("match_batched_cpu: cost is on " + cost.device().str() +
                                "; this entry point takes host tensors, use match_batched for device tensors");
  return solve_host(cost.detach().to(torch::kFloat32).contiguous(), gt_counts, max_threads);
}

}  // namespace libreyolo::sdk::detr
