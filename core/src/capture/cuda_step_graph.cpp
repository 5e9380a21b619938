// CUDA builds only (see core/CMakeLists.txt). Records a whole training step (region `step`) the
// way PyTorch's whole-network capture does: the step runs once on a side stream, then the same
// work is recorded there. The graph replays on whatever stream is current.
#include <torch/cuda.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda_capture_support.hpp"
#include "cuda_graph_memsets.hpp"
#include "libreyolo/core/log/log.hpp"
#include "libreyolo/sdk/batch_norm_workspaces.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"

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

// One recorded step, as one executable graph or, under alternate_step_graphs, as two copies of
// the same recording replayed in turn. Why two: if the driver makes the host wait when it
// launches a graph whose previous launch is still running (tests/tools/graph_launch_probe.cu asks
// whether it does, and whether only for graphs with memset nodes, which cuDNN's BatchNorm adds),
// the host could issue step n + 1 only once step n had finished; with two copies it can issue one
// step ahead. The copies share everything a step graph shares (the pool, the static buffers):
// replayed in turn on one stream, each finishes before the next starts.
class CudaStepGraph : public StepGraph {
 public:
  explicit CudaStepGraph(std::shared_ptr<StepPool> pool) : pool_(std::move(pool)) {}
  void replay() override {
    copies_[next_]->replay();
    next_ = (next_ + 1) % copies_.size();
  }
  double pinned_gb() const override { return pinned_gb_; }
  std::int64_t unchained_memsets() const override { return unchained_; }

  std::shared_ptr<StepPool> pool_;  // outlives the graphs (declared first, destroyed last)
  std::vector<std::unique_ptr<at::cuda::CUDAGraph>> copies_;  // CUDAGraph cannot be moved
  std::size_t next_ = 0;
  double pinned_gb_ = 0;
  std::int64_t unchained_ = 0;
};

std::size_t step_graph_copies() {
  if (!sdk::fused_kernel_allowed("alternate_step_graphs")) return 1;
  static std::once_flag said;
  std::call_once(said, [] {
    log::info("fused_kernels: each whole-step graph is recorded twice and the copies replay in turn "
              "(alternate_step_graphs)");
  });
  return 2;
}

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
    const bool edit = edit_memsets();
    for (std::size_t copy = 0, copies = step_graph_copies(); copy < copies; ++copy) {
      graph->copies_.push_back(new_graph(edit));
      sdk::start_counting_workspace_claims();
      record_on(*graph->copies_.back(), stream, graph->pool_->id, step);
      if (edit) graph->unchained_ += unchain_and_instantiate(*graph->copies_.back(), "the step graph's");
    }
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
