// CUDA builds only (see core/CMakeLists.txt). Records a whole training step (region `step`) the
// way PyTorch's whole-network capture does: the step runs once on a side stream, then the same
// work is recorded there. The graph replays on whatever stream is current.
#include <torch/cuda.h>

#include <exception>
#include <map>
#include <mutex>

#include "cuda_capture_support.hpp"

namespace libreyolo::core::capture::cuda_support {
namespace {

// What every step graph of a device shares: the memory pool their temporaries come from (one
// step's worth, whatever the number of graphs, since they replay one at a time and hand nothing
// to each other through it) and the stream they are recorded on. A high-priority pool stream:
// the loader's upload stream comes from the low-priority pool, and another thread's work on a
// stream that is being recorded would be recorded with it.
struct StepPool {
  PoolId id;
  c10::cuda::CUDAStream stream;
};

// The device's pool while any step graph lives; a fresh one once they are all gone (dropped
// graphs give their memory back with them).
std::shared_ptr<StepPool> pool_for(int device) {
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<StepPool>> pools;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = pools[device];
  if (auto pool = slot.lock()) return pool;
  auto pool = std::make_shared<StepPool>(
      StepPool{at::cuda::graph_pool_handle(),
               c10::cuda::getStreamFromPool(/*isHighPriority=*/true, static_cast<c10::DeviceIndex>(device))});
  slot = pool;
  return pool;
}

class CudaStepGraph : public StepGraph {
 public:
  explicit CudaStepGraph(std::shared_ptr<StepPool> pool) : pool_(std::move(pool)) {}
  void replay() override { graph.replay(); }
  double pinned_gb() const override { return pinned_gb_; }

  std::shared_ptr<StepPool> pool_;  // outlives the graph (declared first, destroyed last)
  at::cuda::CUDAGraph graph;
  double pinned_gb_ = 0;
};

}  // namespace

std::unique_ptr<StepGraph> record_cuda_step(const StepFunction& step, int device) {
  auto graph = std::make_unique<CudaStepGraph>(pool_for(device));
  const auto& stream = graph->pool_->stream;
  const auto main_stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device));
  stream_waits_for(stream, main_stream);
  {
    // The warm-up, on the stream the recording will use (lazily made per-stream workspaces exist
    // before it), and the real step of the batch in the static buffers: its exceptions are the
    // step's own.
    c10::cuda::CUDAStreamGuard guard(stream);
    step();
  }
  torch::cuda::synchronize(device);
  const auto reserved_before = reserved_bytes(device);
  try {
    AutocastCacheOff cache_off;
    record_on(graph->graph, stream, graph->pool_->id, step);
  } catch (const std::exception& e) {
    stream_waits_for(main_stream, stream);
    throw CaptureFailure(e.what());
  }
  stream_waits_for(main_stream, stream);
  torch::cuda::synchronize(device);
  graph->pinned_gb_ = static_cast<double>(reserved_bytes(device) - reserved_before) / kGB;
  return graph;
}

}  // namespace libreyolo::core::capture::cuda_support
