// fill_node_kernel.hpp's kernel. A memset's element pattern repeats every 4 bytes from any
// element-aligned address (1-, 2- and 4-byte elements), so each row is written as 16-byte stores
// of the replicated word where a whole aligned 16 bytes lies inside the row, and as bytes of that
// word at the row's ragged ends.
#include <cuda_runtime.h>

#include <cstdint>

#include "fill_node_kernel.hpp"

namespace libreyolo::core::capture::kernels {
namespace {

struct Fill {
  unsigned char* dst = nullptr;
  std::size_t pitch = 0;      // bytes from one row's start to the next
  std::size_t row_bytes = 0;  // width * elementSize
  std::size_t slots = 0;      // 16-byte slots a row touches
  std::size_t rows = 0;
  std::uint32_t word = 0;     // the value replicated to 4 bytes
};

__global__ void fill_rows(const Fill f) {
  const std::size_t total = f.slots * f.rows;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t row = i / f.slots, slot = i % f.slots;
    unsigned char* begin = f.dst + row * f.pitch;
    unsigned char* end = begin + f.row_bytes;
    const auto base = reinterpret_cast<std::uintptr_t>(begin) & ~std::uintptr_t(15);
    auto* from = reinterpret_cast<unsigned char*>(base + 16 * slot);
    unsigned char* to = from + 16;
    if (from >= begin && to <= end) {
      *reinterpret_cast<uint4*>(from) = make_uint4(f.word, f.word, f.word, f.word);
      continue;
    }
    for (unsigned char* b = from < begin ? begin : from; b < to && b < end; ++b) {
      *b = static_cast<unsigned char>(f.word >> (8 * (reinterpret_cast<std::uintptr_t>(b) & 3)));
    }
  }
}

std::uint32_t replicated(unsigned value, unsigned element_size) {
  if (element_size == 1) return (value & 0xFFu) * 0x01010101u;
  if (element_size == 2) return (value & 0xFFFFu) * 0x00010001u;
  return value;
}

}  // namespace

bool fill_nodes_built() { return true; }

cudaError_t add_fill_node(cudaGraph_t graph, const cudaMemsetParams& params, cudaGraphNode_t* node) {
  const unsigned es = params.elementSize;
  if (es != 1 && es != 2 && es != 4) return cudaErrorInvalidValue;
  Fill f;
  f.dst = static_cast<unsigned char*>(params.dst);
  f.rows = params.height > 0 ? params.height : 1;
  f.pitch = params.pitch;
  f.row_bytes = std::size_t(params.width) * es;
  const auto start = reinterpret_cast<std::uintptr_t>(f.dst);
  // Rows share the first row's alignment only when the pitch is a multiple of 16; otherwise
  // count slots for the worst alignment (one more; a slot outside its row writes nothing).
  f.slots = (start % 16 + f.row_bytes + 15) / 16 + (f.rows > 1 && f.pitch % 16 != 0 ? 1 : 0);
  f.word = replicated(params.value, es);
  const std::size_t total = f.slots * f.rows;
  const unsigned threads = 256;
  const std::size_t wanted = (total + threads - 1) / threads;
  void* arguments[] = {&f};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&fill_rows);
  p.gridDim = dim3(static_cast<unsigned>(wanted < 1 ? 1 : (wanted > 1024 ? 1024 : wanted)));
  p.blockDim = dim3(threads);
  p.kernelParams = arguments;  // copied into the node here
  return cudaGraphAddKernelNode(node, graph, nullptr, 0, &p);
}

}  // namespace libreyolo::core::capture::kernels
