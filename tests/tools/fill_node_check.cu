// Checks core/src/capture/cuda/fill_node_kernel.cu (fused_kernels=memset_kernel_nodes) on a GPU:
// for memsets of 1-, 2- and 4-byte elements, at every start offset within 16 bytes, ragged and
// 16-byte-multiple widths, one row and several rows with pitches that are and are not multiples
// of 16, the fill node's bytes equal cudaMemset2D's (or cudaMemsetD16/D32's) over a buffer whose
// other bytes must stay untouched. Prints one line per failure and a count; exit 1 on any.
// Build and run on the GPU machine (.gpu/common.sh: fill_check):
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/fill_node_check.cu -lcuda -o /tmp/fill_check && /tmp/fill_check
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../../core/src/capture/cuda/fill_node_kernel.cu"

namespace {

constexpr std::size_t kBytes = 1 << 16;

bool same_as_memset(const cudaMemsetParams& p, unsigned char* buffer, std::vector<unsigned char>& want,
                    std::vector<unsigned char>& got) {
  using libreyolo::core::capture::kernels::add_fill_node;
  // The expected bytes, by the driver's own memsets.
  cudaMemset(buffer, 0xAB, kBytes);
  const auto dst = reinterpret_cast<CUdeviceptr>(p.dst);
  const std::size_t rows = p.height > 0 ? p.height : 1;
  if (p.elementSize == 1) cuMemsetD2D8(dst, p.pitch, static_cast<unsigned char>(p.value), p.width, rows);
  if (p.elementSize == 2) cuMemsetD2D16(dst, p.pitch, static_cast<unsigned short>(p.value), p.width, rows);
  if (p.elementSize == 4) cuMemsetD2D32(dst, p.pitch, p.value, p.width, rows);
  cudaMemcpy(want.data(), buffer, kBytes, cudaMemcpyDeviceToHost);
  // The fill node's, in a graph of its own.
  cudaMemset(buffer, 0xAB, kBytes);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaGraphNode_t node;
  cudaGraphCreate(&graph, 0);
  if (add_fill_node(graph, p, &node) != cudaSuccess) return false;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, 0);
  cudaDeviceSynchronize();
  cudaMemcpy(got.data(), buffer, kBytes, cudaMemcpyDeviceToHost);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return cudaGetLastError() == cudaSuccess && std::memcmp(want.data(), got.data(), kBytes) == 0;
}

}  // namespace

int main() {
  unsigned char* buffer = nullptr;
  cudaMalloc(&buffer, kBytes);
  std::vector<unsigned char> want(kBytes), got(kBytes);
  int cases = 0, failures = 0;
  for (unsigned es : {1u, 2u, 4u}) {
    for (std::size_t offset = 0; offset < 16; offset += es) {
      for (std::size_t width : {std::size_t(1), std::size_t(3), std::size_t(16), std::size_t(37), std::size_t(1000)}) {
        for (std::size_t rows : {std::size_t(1), std::size_t(3)}) {
          for (std::size_t pitch_extra : {std::size_t(0), std::size_t(es), std::size_t(16)}) {
            cudaMemsetParams p{};
            p.dst = buffer + 64 + offset;
            p.elementSize = es;
            p.width = width;
            p.height = rows;
            p.pitch = width * es + pitch_extra * (rows > 1 ? 1 : 0);
            if (rows > 1 && p.pitch % es != 0) continue;
            p.value = es == 1 ? 0x5Au : (es == 2 ? 0xBEEFu : 0xDEADBEEFu);
            ++cases;
            if (!same_as_memset(p, buffer, want, got)) {
              ++failures;
              std::printf("differs: element %u bytes, offset %zu, width %zu, rows %zu, pitch %zu\n", es, offset, width,
                          rows, p.pitch);
            }
          }
        }
      }
    }
  }
  std::printf("fill_node_check: %d of %d cases as cudaMemset writes them\n", cases - failures, cases);
  return failures == 0 ? 0 : 1;
}
