#pragma once
// What the GPU check tools (deform_sampling_check, batch_norm_silu_check) share: timing a
// forward + backward on the device and the difference measure they report.
#include <torch/torch.h>

#include <libreyolo/sdk/fused_kernels.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>

namespace libreyolo::tools {

// Milliseconds per call of `once`, after `warmups` untimed calls, over `repeats` timed ones,
// with the device synchronised around the timed span.
template <class Once>
double cuda_ms_per_call(Once&& once, int warmups = 3, int repeats = 20) {
  for (int i = 0; i < warmups; ++i) once();
  torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) once();
  torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeats;
}

// Milliseconds of GPU time per call of `once`, without the host's share: the calls are queued
// behind a blocker (float16 matrix products) that keeps the GPU busy longer than the host needs to
// issue them, so they run back to back as a CUDA graph would run them; the blocker's own time,
// measured alone, is subtracted. For calls whose host issue costs more than their kernels (small
// layers through autograd), where cuda_ms_per_call measures the host.
template <class Once>
double cuda_gpu_ms_per_call(Once&& once, int repeats = 50) {
  const double host_ms = cuda_ms_per_call(once, 3, 10) * repeats;  // an upper bound of the issue time
  const auto a = torch::randn({4096, 4096}, torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat16));
  const auto blocker_once = [&] { (void)torch::mm(a, a); };
  const double product_ms = cuda_ms_per_call(blocker_once, 2, 5);
  const int products = static_cast<int>(2.0 * host_ms / std::max(product_ms, 1e-3)) + 2;
  const auto timed = [&](bool with_calls) {
    torch::cuda::synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < products; ++i) blocker_once();
    if (with_calls)
      for (int i = 0; i < repeats; ++i) once();
    torch::cuda::synchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  double alone = timed(false), with_calls = timed(true);
  for (int round = 0; round < 2; ++round) {  // the least of three each way: the machine is shared
    alone = std::min(alone, timed(false));
    with_calls = std::min(with_calls, timed(true));
  }
  return std::max(0.0, with_calls - alone) / repeats;
}

// Largest difference relative to the reference's largest magnitude (1 where that is below 1).
inline double relative(const torch::Tensor& got, const torch::Tensor& want) {
  const auto scale = std::max(1.0, want.abs().max().item<double>());
  return (got.to(torch::kFloat64) - want.to(torch::kFloat64)).abs().max().item<double>() / scale;
}

// Whether the check can run here; says why not (the caller exits 77, ctest's "skipped").
inline bool fused_kernels_runnable() {
  if (torch::cuda::is_available() && libreyolo::sdk::fused_kernels_built()) return true;
  std::cout << "skipped: needs a CUDA device and a build with the SDK's fused kernels\n";
  return false;
}

}  // namespace libreyolo::tools
