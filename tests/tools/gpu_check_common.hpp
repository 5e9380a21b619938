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
