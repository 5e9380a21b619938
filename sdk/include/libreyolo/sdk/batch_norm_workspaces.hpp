#pragma once
// The workspaces the SDK's BatchNorm hands cuDNN under fused_kernels=batch_norm_memsets (and
// batch_norm_memsets_shifted, batch_norm_memsets_merged), and how core's step recorder learns
// which of them a recording used.
//
// Why: cuDNN's persistent training BatchNorm (the kernels PyTorch picks for channels-last float16)
// clears part of its workspace with a memset before every call, forward and backward. PyTorch takes
// that workspace from the caching allocator, whose blocks other kernels of the step reuse, so in a
// recorded step graph each memset must wait for the kernel before it: about 440 memsets on
// YOLOv9-t's critical path. Under batch_norm_memsets each BatchNorm call gets a workspace of its
// own (per layer and direction, kept for the life of the process), which nothing else ever touches;
// its memset then only has to follow the same call in the previous replay, and the recorder can
// take it off the chain (core/src/capture/workspace_memsets.cpp; docs/fused-kernels.md, "BatchNorm
// memsets off the critical path").
//
// Torch-free on purpose: core's CUDA-only recorder reads the ranges as addresses.

#include <cstdint>
#include <vector>

#include "libreyolo/sdk/export.hpp"

namespace libreyolo::sdk {

// A workspace's device addresses [begin, end) and how many BatchNorm calls used it since
// start_counting_workspace_claims(): a memset inside a workspace that exactly one call used in a
// recording serves that call alone.
struct WorkspaceRange {
  std::uintptr_t begin = 0, end = 0;
  int claims = 0;
};

// Starts counting anew (the recorder, right before it records a step).
LIBREYOLO_SDK_API void start_counting_workspace_claims();

// The workspaces used since the last start_counting_workspace_claims(), each with its count.
LIBREYOLO_SDK_API std::vector<WorkspaceRange> claimed_workspaces();

// Whether any batch_norm_memsets name is allowed now (the SDK's BatchNorm and the recorder
// both ask).
LIBREYOLO_SDK_API bool batch_norm_memsets_allowed();

}  // namespace libreyolo::sdk
