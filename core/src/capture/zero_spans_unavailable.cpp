// zero_spans_kernel.hpp in a CUDA build without the core's CUDA kernels: no such node, so
// batch_norm_memsets_merged keeps the memsets and only moves them (workspace_memsets.cpp says so), and
// memset_kernel_nodes and copy_kernel_nodes leave the memset and memcpy nodes as they are.
#include "cuda/copy_node_kernel.hpp"
#include "cuda/fill_node_kernel.hpp"
#include "cuda/zero_spans_kernel.hpp"

namespace libreyolo::core::capture::kernels {

int zero_spans_per_node() { return 0; }

cudaError_t add_zero_spans_node(cudaGraph_t, const ZeroSpan*, int, cudaGraphNode_t*) { return cudaErrorNotSupported; }

bool fill_nodes_built() { return false; }

cudaError_t add_fill_node(cudaGraph_t, const cudaMemsetParams&, cudaGraphNode_t*) { return cudaErrorNotSupported; }

cudaError_t add_copy_node(cudaGraph_t, const cudaMemcpy3DParms&, cudaGraphNode_t*) { return cudaErrorNotSupported; }

}  // namespace libreyolo::core::capture::kernels
