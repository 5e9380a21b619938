#pragma once
// A kernel node that does what one device-to-device memcpy node does
// (fused_kernels=copy_kernel_nodes), the memcpy counterpart of fill_node_kernel.hpp: for graphs
// whose launch time the driver's copy nodes raise as its memset nodes do (the launch probe,
// tests/tools/graph_launch_probe.cu, measures both). Plain interface (no torch headers reach
// nvcc). Built with the core's CUDA kernels; zero_spans_unavailable.cpp stands in otherwise.
#include <cuda_runtime_api.h>

namespace libreyolo::core::capture::kernels {

// Adds to `graph` a kernel node, waiting for nothing, that copies what `params` describes, or
// returns cudaErrorNotSupported and adds nothing where it is not a copy between two pitched
// device buffers (a CUDA array, or a host side, stays a memcpy node).
cudaError_t add_copy_node(cudaGraph_t graph, const cudaMemcpy3DParms& params, cudaGraphNode_t* node);

}  // namespace libreyolo::core::capture::kernels
