#pragma once
// Every API difference between the LibTorch versions we build against lives here: Debian 12's
// 1.13 (CPU, CI) and PyTorch 2.11's (CUDA 13, the GPU machine). Nothing else in the project
// tests a version macro.

#include <ATen/Functions.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <vector>

#define LIBREYOLO_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||            \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// at::_foreach_mul_(TensorList, const Tensor&): scales every tensor of a list by a 0-dim device
// tensor (gradient clipping's coefficient) without reading it on the host. PyTorch 2.1 added
// it; before that, callers loop over Tensor::mul_.
#define LIBREYOLO_HAS_FOREACH_MUL_TENSOR_SCALAR LIBREYOLO_TORCH_AT_LEAST(2, 1)

namespace libreyolo::sdk::compat {

constexpr const char* torch_version() { return TORCH_VERSION; }

// CUDA autocast on/off and its dtype. PyTorch 2.4 replaced the per-backend functions
// (set_enabled, set_autocast_gpu_dtype) with ones taking a device type.
inline void set_cuda_autocast(bool enabled, at::ScalarType dtype) {
#if LIBREYOLO_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(at::kCUDA, dtype);
  at::autocast::set_autocast_enabled(at::kCUDA, enabled);
#else
  at::autocast::set_autocast_gpu_dtype(dtype);
  at::autocast::set_enabled(enabled);
#endif
}

inline bool cuda_autocast_enabled() {
#if LIBREYOLO_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(at::kCUDA);
#else
  return at::autocast::is_enabled();
#endif
}

inline at::ScalarType cuda_autocast_dtype() {
#if LIBREYOLO_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(at::kCUDA);
#else
  return at::autocast::get_autocast_gpu_dtype();
#endif
}

// dst[i].copy_(src[i]) for every i, converting the type where they differ. PyTorch 2.1 added
// at::_foreach_copy_ (one multi-tensor launch on CUDA, converting too); 1.13 copies one by one.
inline void copy_tensors(std::vector<at::Tensor>& dst, const std::vector<at::Tensor>& src) {
  if (dst.empty()) return;  // _foreach_* refuse empty lists
#if LIBREYOLO_TORCH_AT_LEAST(2, 1)
  at::_foreach_copy_(dst, src);
#else
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
#endif
}

}  // namespace libreyolo::sdk::compat
