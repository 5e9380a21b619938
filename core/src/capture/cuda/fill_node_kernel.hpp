#pragma once
// A kernel node that does what one memset node does (fused_kernels=memset_kernel_nodes): a graph
// holding memset nodes costs the host about 0.5 ms more to launch and makes a relaunch wait for
// the previous run to end, where a graph of kernel nodes only launches in microseconds
// (tests/tools/graph_launch_probe.cu, docs/cuda-graphs.md). So the step recorder may swap each
// memset node left in a recorded graph for one of these, with the same edges
// (workspace_memsets.cpp). Plain interface (no torch headers reach nvcc). Built with the core's
// CUDA kernels; zero_spans_unavailable.cpp stands in otherwise.
#include <cuda_runtime_api.h>

namespace libreyolo::core::capture::kernels {

// Whether this build has the kernel.
bool fill_nodes_built();

// Adds to `graph` a kernel node, waiting for nothing, that sets what the memset `params`
// describes (height rows of width elements of elementSize bytes, pitch bytes apart, to value).
cudaError_t add_fill_node(cudaGraph_t graph, const cudaMemsetParams& params, cudaGraphNode_t* node);

}  // namespace libreyolo::core::capture::kernels
