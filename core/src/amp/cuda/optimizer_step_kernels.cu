// optimizer_step_kernels.hpp's kernels. A block takes kStepElementsPerBlock consecutive elements
// of one slot (small tensors: one block each), its threads consecutive elements: every tensor of
// the slot is read and written coalesced. The slots ride in the launch's __grid_constant__
// parameters (about 30 KB), so a recorded graph keeps them with the kernel node and nothing in
// device memory has to outlive a replay.
#include <cuda_runtime.h>

#include "optimizer_step_device.cuh"
#include "optimizer_step_kernels.hpp"

namespace libreyolo::core::amp::fused {
namespace {

// CUDA 12.1 and later take 32 KB of kernel parameters on sm_70 and newer (64-byte slots: 480
// fill 30 KB beside the scalars); older toolkits 4 KB.
#if CUDART_VERSION >= 12010
constexpr int kSlotsPerLaunch = 480;
#else
constexpr int kSlotsPerLaunch = 56;
#endif
using Batch = SlotBatch<kSlotsPerLaunch>;

__global__ void check_kernel(const __grid_constant__ Batch batch, float* __restrict__ found_inf) {
  const OptimizerSlot& slot = batch.slot[slot_of_block(batch, blockIdx.x)];
  const std::int64_t first = std::int64_t(blockIdx.x - slot.first_block) * kStepElementsPerBlock;
  const std::int64_t end = min(first + kStepElementsPerBlock, std::int64_t(slot.numel));
  bool bad = false;
  for (std::int64_t i = first + threadIdx.x; i < end; i += blockDim.x) bad |= !finite(gradient_at(slot, i));
  if (__syncthreads_or(bad) && threadIdx.x == 0) *found_inf = 1.f;
}

__global__ void update_kernel(const __grid_constant__ Batch batch, const __grid_constant__ StepScalars s) {
  const OptimizerSlot& slot = batch.slot[slot_of_block(batch, blockIdx.x)];
  const std::int64_t first = std::int64_t(blockIdx.x - slot.first_block) * kStepElementsPerBlock;
  const std::int64_t end = min(first + kStepElementsPerBlock, std::int64_t(slot.numel));
  if (slot.kind == SlotKind::int64_copy) {
    for (std::int64_t i = first + threadIdx.x; i < end; i += blockDim.x) copy_integer_element(slot, i);
    return;
  }
  // torch's fused SGD skips only when found_inf is exactly 1 (it is 0 or 1).
  const bool skip = *s.found_inf == 1.f;
  const float inv_scale = inverse_scale(*s.scale);
  const float decay = s.decay != nullptr ? *s.decay : 0.f;
  const float keep = s.keep != nullptr ? *s.keep : 0.f;
  for (std::int64_t i = first + threadIdx.x; i < end; i += blockDim.x) {
    update_element(slot, i, s, inv_scale, skip, decay, keep);
  }
}

__global__ void finish_kernel(const StepScalars s) { finish_step(s); }

// Launches `kernel` once per batch of slots; 0 or the first CUDA error.
template <class Launch>
int for_each_batch(const OptimizerSlot* slots, int count, Launch launch) {
  static thread_local Batch batch;  // 30 KB: not on the host stack
  for (int start = 0; start < count;) {
    start = fill_batch(slots, count, start, batch);
    launch(batch);
    if (const auto error = cudaGetLastError(); error != cudaSuccess) return static_cast<int>(error);
  }
  return 0;
}

}  // namespace

int optimizer_step_check(const OptimizerSlot* slots, int count, float* found_inf, void* stream) {
  const auto on = static_cast<cudaStream_t>(stream);
  return for_each_batch(slots, count, [&](const Batch& batch) {
    check_kernel<<<static_cast<unsigned>(batch.blocks), kStepThreads, 0, on>>>(batch, found_inf);
  });
}

int optimizer_step_update(const OptimizerSlot* slots, int count, const StepScalars& scalars, void* stream) {
  const auto on = static_cast<cudaStream_t>(stream);
  return for_each_batch(slots, count, [&](const Batch& batch) {
    update_kernel<<<static_cast<unsigned>(batch.blocks), kStepThreads, 0, on>>>(batch, scalars);
  });
}

int optimizer_step_finish(const StepScalars& scalars, void* stream) {
  finish_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(scalars);
  return static_cast<int>(cudaGetLastError());
}

const char* optimizer_step_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace libreyolo::core::amp::fused
