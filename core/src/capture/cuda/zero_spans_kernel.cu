// zero_spans_kernel.hpp's kernel: one thread a span, byte by byte (the spans are a few bytes each,
// as cuDNN's memsets of element size 1 were).
#include <cuda_runtime.h>

#include "zero_spans_kernel.hpp"

namespace libreyolo::core::capture::kernels {
namespace {

// CUDA 12.1 and later take 32 KB of kernel parameters on sm_70 and newer; older toolkits 4 KB.
#if CUDART_VERSION >= 12010
constexpr int kSpansPerNode = 480;
#else
constexpr int kSpansPerNode = 240;
#endif

struct SpanTable {
  ZeroSpan span[kSpansPerNode];
  int count;
};

__global__ void zero_spans(const __grid_constant__ SpanTable table) {
  for (int i = threadIdx.x; i < table.count; i += blockDim.x) {
    auto* bytes = static_cast<unsigned char*>(table.span[i].dst);
    for (std::uint32_t b = 0; b < table.span[i].bytes; ++b) bytes[b] = 0;
  }
}

}  // namespace

int zero_spans_per_node() { return kSpansPerNode; }

cudaError_t add_zero_spans_node(cudaGraph_t graph, const ZeroSpan* spans, int count, cudaGraphNode_t* node) {
  if (count < 0 || count > kSpansPerNode) return cudaErrorInvalidValue;
  SpanTable table{};
  for (int i = 0; i < count; ++i) table.span[i] = spans[i];
  table.count = count;
  void* arguments[] = {&table};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&zero_spans);
  p.gridDim = dim3(1);
  p.blockDim = dim3(256);
  p.kernelParams = arguments;  // copied into the node here
  return cudaGraphAddKernelNode(node, graph, nullptr, 0, &p);
}

}  // namespace libreyolo::core::capture::kernels
