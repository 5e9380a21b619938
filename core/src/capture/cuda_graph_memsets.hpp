#pragma once
// CUDA builds only: what both recorders (cuda_step_graph.cpp, cuda_region_graph.cpp) do to take
// cuDNN's BatchNorm memsets off a recorded graph's chain under fused_kernels=batch_norm_memsets
// (and its _shifted and _merged placements): keep the recording uninstantiated,
// edit it (workspace_memsets.hpp), then instantiate it. Private to core/src/capture/.
#include <ATen/cuda/CUDAGraph.h>

#include <cstdint>
#include <memory>

namespace libreyolo::core::capture::cuda_support {

// Whether recordings are to be kept for editing: a batch_norm_memsets name is allowed and this
// LibTorch can keep a graph before instantiating it (2.9 or later; older ones get one log line
// saying the memsets stay where they were recorded).
bool edit_memsets();

// A graph to record into, kept after capture_end (not yet instantiated) when `keep`.
std::unique_ptr<at::cuda::CUDAGraph> new_graph(bool keep);

// Takes the memsets into workspaces claimed since sdk::start_counting_workspace_claims() off the
// kept graph's chain, instantiates it, says once per `what` ("the step graph's", "the region's
// forward graph's") what it did, and returns how many memsets it moved.
std::int64_t unchain_and_instantiate(at::cuda::CUDAGraph& graph, const char* what);

}  // namespace libreyolo::core::capture::cuda_support
