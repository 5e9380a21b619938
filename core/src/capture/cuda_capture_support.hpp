#pragma once
// CUDA builds only: what the two CUDA-graph recorders share (cuda_region_graph.cpp records a
// network region, cuda_step_graph.cpp a whole training step). Private to core/src/capture/.
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <torch/version.h>

#include <cstdint>
#include <memory>
#include <mutex>

#include "libreyolo/core/capture/region_graph.hpp"

namespace libreyolo::core::capture::cuda_support {

constexpr std::size_t kAggregate = 0;  // the allocator's all-pools statistic
constexpr double kGB = 1024.0 * 1024.0 * 1024.0;

inline std::int64_t reserved_bytes(int device) {
  return c10::cuda::CUDACachingAllocator::getDeviceStats(device).reserved_bytes[kAggregate].current;
}

inline void stream_waits_for(const c10::cuda::CUDAStream& waiter, const c10::cuda::CUDAStream& producer) {
  at::cuda::CUDAEvent event;
  event.record(producer);
  event.block(waiter);
}

// Autocast caches the float16 copies of the weights; a cache entry made during capture would
// live in the graph's private pool and be reused after the graph is gone. The recorded casts
// run on every replay instead (make_graphed_callables demands the same).
class AutocastCacheOff {
 public:
  AutocastCacheOff() : previous_(at::autocast::is_autocast_cache_enabled()) {
    at::autocast::set_autocast_cache_enabled(false);
  }
  ~AutocastCacheOff() { at::autocast::set_autocast_cache_enabled(previous_); }
  AutocastCacheOff(const AutocastCacheOff&) = delete;
  AutocastCacheOff& operator=(const AutocastCacheOff&) = delete;

 private:
  bool previous_;
};

// Records `work` into `graph` on `stream`. Capture is thread-local: the loader's threads keep
// making CUDA calls (event waits, uploads) while the main thread records.
using PoolId = decltype(at::cuda::graph_pool_handle());

// The device's default random generator as it was before a capture. A capture that fails ends
// without PyTorch's generator epilogue (CUDAGraph::capture_end throws before it), which leaves
// the generator believing it is still capturing: the next random kernel outside any graph (a
// dropout after the fall-back to eager) then throws "Offset increment outside graph capture
// encountered unexpectedly". Putting a copy taken before capture_begin back repairs that; its
// offsets are the right ones, since a capture only counts offsets inside the graph. (Graphs
// recorded earlier keep advancing the state object they were recorded with; random kernels
// inside them and eager ones then count offsets apart. No family draws random numbers inside its
// captured region by default, so this is noted rather than solved.)
class GeneratorBeforeCapture {
 public:
  GeneratorBeforeCapture() : generator_(at::cuda::detail::getDefaultCUDAGenerator()) {
    const std::lock_guard<std::mutex> lock(generator_.mutex());
    copy_ = generator_.clone();
  }
  void restore() {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    const std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.graphsafe_set_state(copy_);
#endif
  }

 private:
  at::Generator generator_, copy_;
};

template <class Work>
void record_on(at::cuda::CUDAGraph& graph, const c10::cuda::CUDAStream& stream, PoolId pool, Work&& work) {
  c10::cuda::CUDAStreamGuard guard(stream);
  GeneratorBeforeCapture generator;
  graph.capture_begin(pool, cudaStreamCaptureModeThreadLocal);
  bool capturing = true;
  try {
    work();
    capturing = false;  // capture_end below may throw too, and must not be called twice
    graph.capture_end();
  } catch (...) {
    // Leave capture mode whatever happened, or the stream stays unusable.
    if (capturing) {
      try {
        graph.capture_end();
      } catch (...) {
      }
    }
    (void)cudaGetLastError();
    generator.restore();
    throw;
  }
}

// The recorder of whole steps (cuda_step_graph.cpp): one recording stream and one memory pool
// for every step graph, kept while any of them lives.
std::unique_ptr<StepGraph> record_cuda_step(const StepFunction& step, int device);

}  // namespace libreyolo::core::capture::cuda_support
