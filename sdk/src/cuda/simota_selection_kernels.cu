// SimOTA's selection after the top-k: the composed ops are a float [B, M, A] matching matrix
// zeroed and scattered into, its sum and argmax over rows, the costs' argmin over rows, a gather
// and three wheres, each a pass over tens of MB at YOLOX's 8,400 anchors; here a byte mask and
// two launches (the per-item code and its rules: simota_selection_device.cuh).
#include <cuda_runtime.h>

#include <cstdint>

#include "launch_size.cuh"
#include "simota_selection_device.cuh"
#include "simota_selection_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    mark_kernel(SimOtaSelectionShape s, SimOtaSelectionInputs in, SimOtaSelectionOutputs out) {
  const int64_t total = s.batch * s.rows * s.topk;
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < total; j += int64_t(gridDim.x) * blockDim.x)
    simota_select::mark_taken(s, in, out, j);
}

__global__ void __launch_bounds__(kThreads)
    assign_kernel(SimOtaSelectionShape s, SimOtaSelectionInputs in, SimOtaSelectionOutputs out) {
  const int64_t total = s.batch * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    simota_select::assign_anchor(s, in, out, i);
}

}  // namespace

int simota_selection(const SimOtaSelectionShape& shape, const SimOtaSelectionInputs& in,
                     const SimOtaSelectionOutputs& out, void* stream) {
  const auto cuda_stream = static_cast<cudaStream_t>(stream);
  const int64_t marks = shape.batch * shape.rows * shape.topk, anchors = shape.batch * shape.anchors;
  if (marks > 0) mark_kernel<<<grid_stride_blocks(marks, kThreads), kThreads, 0, cuda_stream>>>(shape, in, out);
  if (const auto error = cudaGetLastError(); error != cudaSuccess) return static_cast<int>(error);
  if (anchors > 0) assign_kernel<<<grid_stride_blocks(anchors, kThreads), kThreads, 0, cuda_stream>>>(shape, in, out);
  return static_cast<int>(cudaGetLastError());
}

const char* simota_selection_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
