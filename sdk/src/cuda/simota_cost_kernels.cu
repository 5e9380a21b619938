// SimOTA's centre prior, IoU and matching cost in one pass. Composed, this stage is about 40
// elementwise launches over [B, M, A] float and bool tensors (tens of MB each at YOLOX's 8,400
// anchors and 48 padded rows) plus a gather and two BCEs, in every training step's graph. Here
// one thread owns an (image, anchor) pair and walks the gt rows (simota_cost_device.cuh, the
// code and its bit-equality rules): consecutive threads write consecutive anchors of a row, so
// the stores coalesce.
#include <cuda_runtime.h>

#include <cstdint>

#include "launch_size.cuh"
#include "simota_cost_device.cuh"
#include "simota_cost_kernels.hpp"

namespace libreyolo::sdk::fused {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    cost_kernel(SimOtaCostShape s, SimOtaCostInputs in, SimOtaCostOutputs out) {
  const int64_t total = s.batch * s.anchors;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    simota::cost_of_anchor(s, in, out, i);
}

}  // namespace

int simota_cost(const SimOtaCostShape& shape, const SimOtaCostInputs& in, const SimOtaCostOutputs& out, void* stream) {
  const int64_t total = shape.batch * shape.anchors;
  if (total == 0) return 0;
  cost_kernel<<<grid_stride_blocks(total, kThreads), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(shape, in, out);
  return static_cast<int>(cudaGetLastError());
}

const char* simota_cost_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::sdk::fused
