#pragma once
// One kernel node that clears many small spans of device memory: under
// fused_kernels=batch_norm_memsets_merged it replaces the recorded step's BatchNorm memsets (4-16
// bytes each, one before every cuDNN BatchNorm call) by a node or two at the graph's start
// (workspace_memsets.cpp). Plain interface (no torch headers reach nvcc); the spans ride in the
// node's __grid_constant__ parameters, so nothing in device memory has to outlive the graph.
// Built with the core's CUDA kernels; zero_spans_unavailable.cpp stands in otherwise.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace libreyolo::core::capture::kernels {

struct ZeroSpan {
  void* dst = nullptr;
  std::uint32_t bytes = 0;
  std::uint32_t unused = 0;  // 16 bytes a span
};

// How many spans one node carries (0: this build has no such kernel).
int zero_spans_per_node();

// Adds to `graph` a kernel node, waiting for nothing, that sets every byte of spans[0, count) to 0.
cudaError_t add_zero_spans_node(cudaGraph_t graph, const ZeroSpan* spans, int count, cudaGraphNode_t* node);

}  // namespace libreyolo::core::capture::kernels
