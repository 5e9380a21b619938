// Checks core/src/capture/cuda/fill_node_kernel.cu (fused_kernels=memset_kernel_nodes) on a GPU:
// for memsets of 1-, 2- and 4-byte elements, at every start offset within 16 bytes, ragged and
// 16-byte-multiple widths, one row and several rows with pitches that are and are not multiples
// of 16, the fill node's bytes equal cudaMemset2D's (or cudaMemsetD16/D32's) over a buffer whose
// other bytes must stay untouched; and core/src/capture/cuda/copy_node_kernel.cu
// (fused_kernels=copy_kernel_nodes): for device-to-device copies at mixed source and destination
// offsets, widths, rows, pitches, positions and two slices, the copy node's bytes equal
// cudaMemcpy3D's, and a host-to-device copy is refused (it stays a memcpy node). Prints one line
// per failure and a count; exit 1 on any.
// Build and run on the GPU machine (.gpu/common.sh: fill_check):
//   nvcc -O2 -std=c++17 -arch=sm_90 tests/tools/fill_node_check.cu -lcuda -o /tmp/fill_check && /tmp/fill_check
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "../../core/src/capture/cuda/copy_node_kernel.cu"
#include "../../core/src/capture/cuda/fill_node_kernel.cu"

namespace {

constexpr std::size_t kBytes = 1 << 16;

// `buffer`'s bytes after `expected` wrote into it (the driver's own call) equal those after a
// graph of the one node `add_node` adds ran, every other byte starting as 0xAB both times.
template <typename Expected, typename AddNode>
bool same_bytes(unsigned char* buffer, std::vector<unsigned char>& want, std::vector<unsigned char>& got,
                Expected expected, AddNode add_node) {
  cudaMemset(buffer, 0xAB, kBytes);
  expected();
  cudaMemcpy(want.data(), buffer, kBytes, cudaMemcpyDeviceToHost);
  cudaMemset(buffer, 0xAB, kBytes);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaGraphNode_t node;
  cudaGraphCreate(&graph, 0);
  if (add_node(graph, &node) != cudaSuccess) return false;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, 0);
  cudaDeviceSynchronize();
  cudaMemcpy(got.data(), buffer, kBytes, cudaMemcpyDeviceToHost);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return cudaGetLastError() == cudaSuccess && std::memcmp(want.data(), got.data(), kBytes) == 0;
}

bool same_as_memset(const cudaMemsetParams& p, unsigned char* buffer, std::vector<unsigned char>& want,
                    std::vector<unsigned char>& got) {
  const auto by_driver = [&p] {
    const auto dst = reinterpret_cast<CUdeviceptr>(p.dst);
    const std::size_t rows = p.height > 0 ? p.height : 1;
    if (p.elementSize == 1) cuMemsetD2D8(dst, p.pitch, static_cast<unsigned char>(p.value), p.width, rows);
    if (p.elementSize == 2) cuMemsetD2D16(dst, p.pitch, static_cast<unsigned short>(p.value), p.width, rows);
    if (p.elementSize == 4) cuMemsetD2D32(dst, p.pitch, p.value, p.width, rows);
  };
  return same_bytes(buffer, want, got, by_driver, [&p](cudaGraph_t graph, cudaGraphNode_t* node) {
    return libreyolo::core::capture::kernels::add_fill_node(graph, p, node);
  });
}

bool same_as_memcpy(const cudaMemcpy3DParms& p, unsigned char* buffer, std::vector<unsigned char>& want,
                    std::vector<unsigned char>& got) {
  return same_bytes(buffer, want, got, [&p] { cudaMemcpy3D(&p); }, [&p](cudaGraph_t graph, cudaGraphNode_t* node) {
    return libreyolo::core::capture::kernels::add_copy_node(graph, p, node);
  });
}

// Copies between `source` (a byte pattern) and `buffer`: every pair of offsets in {0,1,2,4,8,12},
// widths, rows with pitches, a position inside the rows and two slices.
void check_copies(unsigned char* source, unsigned char* buffer, std::vector<unsigned char>& want,
                  std::vector<unsigned char>& got, int& cases, int& failures) {
  for (std::size_t src_offset : {0, 1, 2, 4, 8, 12}) {
    for (std::size_t dst_offset : {0, 1, 2, 4, 8, 12}) {
      for (std::size_t width : {1, 3, 16, 37, 1000, 4096}) {
        for (std::size_t rows : {1, 3}) {
          for (std::size_t depth : {1, 2}) {
            for (std::size_t extra : {0, 2, 16}) {
              cudaMemcpy3DParms p{};
              const std::size_t pitch = width + extra + 32, dst_pitch = width + extra + 48;
              p.srcPtr = make_cudaPitchedPtr(source + 64 + src_offset, pitch, width, rows + 1);
              p.dstPtr = make_cudaPitchedPtr(buffer + 64 + dst_offset, dst_pitch, width, rows + 1);
              p.srcPos = make_cudaPos(extra, rows > 1 ? 1 : 0, 0);
              p.dstPos = make_cudaPos(0, 0, depth > 1 ? 1 : 0);
              p.extent = make_cudaExtent(width, rows, depth);
              p.kind = cudaMemcpyDeviceToDevice;
              ++cases;
              if (!same_as_memcpy(p, buffer, want, got)) {
                ++failures;
                std::printf("copy differs: offsets %zu -> %zu, width %zu, rows %zu, depth %zu, extra %zu\n", src_offset,
                            dst_offset, width, rows, depth, extra);
              }
            }
          }
        }
      }
    }
  }
}

bool refuses_host_copies(unsigned char* buffer) {
  std::vector<unsigned char> host(64);
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(host.data(), 64, 64, 1);
  p.dstPtr = make_cudaPitchedPtr(buffer, 64, 64, 1);
  p.extent = make_cudaExtent(64, 1, 1);
  p.kind = cudaMemcpyHostToDevice;
  cudaGraph_t graph;
  cudaGraphNode_t node;
  cudaGraphCreate(&graph, 0);
  const bool refused = libreyolo::core::capture::kernels::add_copy_node(graph, p, &node) == cudaErrorNotSupported;
  cudaGraphDestroy(graph);
  return refused;
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
  unsigned char* source = nullptr;
  cudaMalloc(&source, kBytes);
  std::vector<unsigned char> pattern(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) pattern[i] = static_cast<unsigned char>(i * 7 + 3);
  cudaMemcpy(source, pattern.data(), kBytes, cudaMemcpyHostToDevice);
  int copy_cases = 0, copy_failures = 0;
  check_copies(source, buffer, want, got, copy_cases, copy_failures);
  const bool refused = refuses_host_copies(buffer);
  if (!refused) std::printf("a host-to-device copy was not refused\n");
  std::printf("fill_node_check: %d of %d copies as cudaMemcpy3D writes them\n", copy_cases - copy_failures, copy_cases);
  return failures == 0 && copy_failures == 0 && refused ? 0 : 1;
}
