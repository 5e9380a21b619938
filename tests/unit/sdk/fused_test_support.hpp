#pragma once
// What the fused-kernel unit tests share: the process-wide policy set for a scope, a forward +
// backward from a fresh leaf, a difference measure, and inputs whose memory is not 16-byte aligned.
#include <torch/torch.h>

#include <algorithm>
#include <string>

#include "libreyolo/sdk/fused_kernels.hpp"

namespace libreyolo::test {

struct PolicyGuard {  // the policy is process-wide: leave it as found
  sdk::FusedKernels before = sdk::fused_kernels();
  explicit PolicyGuard(sdk::FusedKernels policy, const std::string& only = "") { sdk::set_fused_kernels(policy, only); }
  ~PolicyGuard() { sdk::set_fused_kernels(before); }
  PolicyGuard(const PolicyGuard&) = delete;
  PolicyGuard& operator=(const PolicyGuard&) = delete;
};

struct ForwardBackward {
  torch::Tensor y, grad_x;
};

// y = op(x) and x's gradient for `upstream`, x a fresh leaf over x_in's memory (alignment kept).
template <class Op>
ForwardBackward forward_backward(const torch::Tensor& x_in, const torch::Tensor& upstream, Op op) {
  auto x = x_in.detach().requires_grad_();
  ForwardBackward r;
  r.y = op(x);
  r.y.backward(upstream);
  r.grad_x = x.grad();
  return r;
}

// Equal bit for bit as values: NaN where the other has NaN, every other element equal (a NaN
// payload and the sign of a zero are not compared); integer and bool tensors exactly equal.
inline bool same_bits(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.is_floating_point()) return torch::equal(a, b);
  const auto nan_a = torch::isnan(a), nan_b = torch::isnan(b);
  const auto zero = torch::zeros({}, a.options());
  return torch::equal(nan_a, nan_b) && torch::equal(torch::where(nan_a, zero, a), torch::where(nan_b, zero, b));
}

inline bool fused_runnable() { return torch::cuda::is_available() && sdk::fused_kernels_built(); }

// Largest difference relative to the reference's largest magnitude.
inline double relative_difference(const torch::Tensor& got, const torch::Tensor& want) {
  const auto scale = std::max(1e-30, want.abs().max().item<double>());
  return (got.to(torch::kFloat64) - want.to(torch::kFloat64)).abs().max().item<double>() / scale;
}

// x's values in a view (same strides) whose first element sits one element past its
// allocation's start: the kernels must notice and take their one-element accesses.
inline torch::Tensor misaligned_copy(const torch::Tensor& x) {
  const auto buffer = torch::empty({x.numel() + 1}, x.options());
  auto view = buffer.as_strided(x.sizes(), x.strides(), /*storage_offset=*/1);
  view.copy_(x);
  return view;
}

}  // namespace libreyolo::test
