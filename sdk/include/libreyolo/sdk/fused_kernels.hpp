#pragma once
// Whether the SDK's hand-written fused CUDA kernels replace their composed PyTorch versions
// (deformable attention's sampling, detr/ms_deform_attn.hpp; BatchNorm + SiLU,
// batch_norm_silu.hpp). A process-wide policy
// that the host sets from the `fused_kernels` option before it builds a model; families never
// choose it. Off by default: a fused kernel becomes the default only once it is measured faster
// and equal within tolerance on the GPU (docs/fused-kernels.md).

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

enum class FusedKernels {
  off,         // always the composed PyTorch ops
  when_built,  // the fused kernel where this build has it and the inputs suit it (CUDA, shapes)
};

LIBREYOLO_SDK_API void set_fused_kernels(FusedKernels policy);
LIBREYOLO_SDK_API FusedKernels fused_kernels();
// True when this SDK was compiled with its CUDA kernels (a CUDA LibTorch and nvcc).
LIBREYOLO_SDK_API bool fused_kernels_built();

}  // namespace libreyolo::sdk
