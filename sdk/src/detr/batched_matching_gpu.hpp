#pragma once
// The SDK-internal seam between match_batched (batched_matching.cpp) and the GPU assignment
// kernel: batched_matching_gpu.cpp in a CUDA build, batched_matching_gpu_unavailable.cpp
// otherwise. Not installed: families call match_batched.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace libreyolo::sdk::detr {

// Why the GPU solver cannot take this cost ("" when it can).
std::string gpu_matching_refusal(const torch::Tensor& cost);

// match_batched's contract, solved on cost's CUDA device without a host synchronisation: the
// result stays on the device, and a matrix with a non-finite real cost comes back all -1
// instead of throwing (the caller's loss is then non-finite too; see batched_matching.hpp).
// gt_counts are checked by the caller.
torch::Tensor match_batched_gpu(const torch::Tensor& cost, const std::vector<int64_t>& gt_counts);

}  // namespace libreyolo::sdk::detr
