#pragma once
// CUDA builds only: takes cuDNN's BatchNorm memsets off a recorded step graph's critical path
// (fused_kernels=batch_norm_memsets; libreyolo/sdk/batch_norm_workspaces.hpp says why it is safe).
// Private to core/src/capture/.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "libreyolo/sdk/batch_norm_workspaces.hpp"

namespace libreyolo::core::capture::cuda_support {

// Where an unchained memset waits: for nothing (the graph's start), or for what the previous
// unchained memset waited for (so it runs beside the call before its own); or the memsets are
// replaced by kernel nodes at the graph's start that clear all their bytes at once (one node for
// up to 480 of them: cuda/zero_spans_kernel.hpp), each with an edge to every call it clears; or
// those kernel nodes go ahead of every node that waits for nothing (one_kernel_leading), which
// orders them before every call through the graph's own edges: one edge a root instead of one a
// call, so a graph that was one chain stays one (a driver may launch such a graph faster).
enum class MemsetPlacement { at_start, one_call_early, one_kernel, one_kernel_leading };

struct MemsetSurgery {
  int memsets = 0;    // memset nodes in the graph
  int unchained = 0;  // of those, taken off the chain
  int shared = 0;     // in a workspace more than one call used: left as recorded
  int merged = 0;        // of the unchained, cleared by the kernel nodes instead (one_kernel, one_kernel_leading)
  int kernel_nodes = 0;  // zero-span kernel nodes added
  bool no_merge_kernel = false;  // one_kernel asked for, but this build has no such kernel
};

// For every memset of value 0 that lies wholly inside a workspace exactly one call claimed during
// the recording (`workspaces`) and is that workspace's only memset: what waited for it now also
// waits for what it waited for, and it waits as `placement` says. Edges are only ever added from
// an earlier to a later node of one topological order (a kernel node added at the start is
// earlier than every node), so the graph stays acyclic.
MemsetSurgery unchain_workspace_memsets(cudaGraph_t graph, const std::vector<sdk::WorkspaceRange>& workspaces,
                                        MemsetPlacement placement);

// fused_kernels=memset_kernel_nodes: every memset node of `graph` becomes a kernel node that
// writes the same bytes, with the same edges (cuda/fill_node_kernel.hpp says why). Returns how
// many; 0 where this build has no such kernel.
int memsets_to_kernel_nodes(cudaGraph_t graph);

// How many memcpy nodes `graph` holds (the log says how many are left).
int memcpy_nodes(cudaGraph_t graph);

// fused_kernels=copy_kernel_nodes: every device-to-device memcpy node of `graph` becomes a kernel
// node that copies the same bytes, with the same edges (cuda/copy_node_kernel.hpp); a copy from
// or to the host stays. Returns how many; 0 where this build has no such kernel.
int memcpys_to_kernel_nodes(cudaGraph_t graph);

}  // namespace libreyolo::core::capture::cuda_support
