// Device capability queries that need CUDA headers live in cuda_capabilities_cuda.cpp; this is
// the CPU-only build's answer.
#include "libreyolo/core/amp/precision_plan.hpp"

namespace libreyolo::core::amp {

#ifndef LIBREYOLO_WITH_CUDA
bool cuda_supports_bfloat16(const torch::Device&) { return false; }
#endif

}  // namespace libreyolo::core::amp
