// copy_node_kernel.hpp's kernel. Each thread copies one unit of the widest size (16, 8, 4, 2 or
// 1 bytes) that divides both start addresses, both pitches and the row width, so the common case
// (whole float16/float32 tensors, 256-byte aligned allocations) moves 16 bytes a thread.
#include <cuda_runtime.h>

#include <cstdint>

#include "copy_node_kernel.hpp"

namespace libreyolo::core::capture::kernels {
namespace {

struct Copy {
  const unsigned char* src = nullptr;
  unsigned char* dst = nullptr;
  std::size_t src_pitch = 0, dst_pitch = 0;  // bytes from one row's start to the next
  std::size_t units = 0;                      // units of `unit` bytes in a row
  std::size_t rows = 0;                       // height * depth
  std::size_t src_slice = 0, dst_slice = 0;   // bytes from one slice's start to the next
  std::size_t height = 0;                     // rows in a slice
};

template <typename Unit>
__global__ void copy_rows(const Copy c) {
  const std::size_t total = c.units * c.rows;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t row = i / c.units, unit = i % c.units;
    const std::size_t slice = row / c.height, y = row % c.height;
    const auto* from = c.src + slice * c.src_slice + y * c.src_pitch;
    auto* to = c.dst + slice * c.dst_slice + y * c.dst_pitch;
    reinterpret_cast<Unit*>(to)[unit] = reinterpret_cast<const Unit*>(from)[unit];
  }
}

bool on_device(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice;
}

// The widest power of two up to 16 that divides every one of `values`.
std::size_t common_unit(std::initializer_list<std::uintptr_t> values) {
  std::size_t unit = 16;
  for (const auto v : values) {
    while (unit > 1 && v % unit != 0) unit /= 2;
  }
  return unit;
}

void* kernel_for(std::size_t unit) {
  switch (unit) {
    case 16: return reinterpret_cast<void*>(&copy_rows<uint4>);
    case 8: return reinterpret_cast<void*>(&copy_rows<uint2>);
    case 4: return reinterpret_cast<void*>(&copy_rows<std::uint32_t>);
    case 2: return reinterpret_cast<void*>(&copy_rows<std::uint16_t>);
    default: return reinterpret_cast<void*>(&copy_rows<unsigned char>);
  }
}

}  // namespace

cudaError_t add_copy_node(cudaGraph_t graph, const cudaMemcpy3DParms& params, cudaGraphNode_t* node) {
  const bool device_kind = params.kind == cudaMemcpyDeviceToDevice || params.kind == cudaMemcpyDefault;
  if (!device_kind || params.srcArray != nullptr || params.dstArray != nullptr) return cudaErrorNotSupported;
  if (!on_device(params.srcPtr.ptr) || !on_device(params.dstPtr.ptr)) return cudaErrorNotSupported;
  Copy c;
  const auto& e = params.extent;  // width in bytes for pitched pointers
  c.height = e.height > 0 ? e.height : 1;
  c.rows = c.height * (e.depth > 0 ? e.depth : 1);
  c.src_pitch = params.srcPtr.pitch > 0 ? params.srcPtr.pitch : e.width;
  c.dst_pitch = params.dstPtr.pitch > 0 ? params.dstPtr.pitch : e.width;
  c.src_slice = c.src_pitch * (params.srcPtr.ysize > 0 ? params.srcPtr.ysize : c.height);
  c.dst_slice = c.dst_pitch * (params.dstPtr.ysize > 0 ? params.dstPtr.ysize : c.height);
  c.src = static_cast<const unsigned char*>(params.srcPtr.ptr) + params.srcPos.z * c.src_slice +
          params.srcPos.y * c.src_pitch + params.srcPos.x;
  c.dst = static_cast<unsigned char*>(params.dstPtr.ptr) + params.dstPos.z * c.dst_slice +
          params.dstPos.y * c.dst_pitch + params.dstPos.x;
  const std::size_t unit = common_unit({reinterpret_cast<std::uintptr_t>(c.src), reinterpret_cast<std::uintptr_t>(c.dst),
                                        c.src_pitch, c.dst_pitch, e.width, c.src_slice, c.dst_slice});
  c.units = e.width / unit;
  const std::size_t total = c.units * c.rows;
  const unsigned threads = 256;
  const std::size_t wanted = (total + threads - 1) / threads;
  void* arguments[] = {&c};
  cudaKernelNodeParams p{};
  p.func = kernel_for(unit);
  p.gridDim = dim3(static_cast<unsigned>(wanted < 1 ? 1 : (wanted > 2048 ? 2048 : wanted)));
  p.blockDim = dim3(threads);
  p.kernelParams = arguments;  // copied into the node here
  return cudaGraphAddKernelNode(node, graph, nullptr, 0, &p);
}

}  // namespace libreyolo::core::capture::kernels
