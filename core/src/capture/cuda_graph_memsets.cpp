// cuda_graph_memsets.hpp: keeping a recording for editing, choosing the placement from the
// fused_kernels names, the edit and one log line per kind of graph.
#include "cuda_graph_memsets.hpp"

#include <torch/version.h>

#include <mutex>
#include <set>
#include <string>

#include "libreyolo/core/log/log.hpp"
#include "libreyolo/sdk/batch_norm_workspaces.hpp"
#include "libreyolo/sdk/fused_kernels.hpp"
#include "workspace_memsets.hpp"

namespace libreyolo::core::capture::cuda_support {
namespace {

// CUDAGraph's keep_graph, raw_cuda_graph() and instantiate() came with LibTorch 2.9.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)
#define LIBREYOLO_CAN_EDIT_GRAPHS 1
constexpr bool kCanEditGraphs = true;
#else
constexpr bool kCanEditGraphs = false;
#endif

#ifdef LIBREYOLO_CAN_EDIT_GRAPHS
MemsetPlacement memset_placement() {
  if (sdk::fused_kernel_allowed("batch_norm_memsets_leading")) return MemsetPlacement::one_kernel_leading;
  if (sdk::fused_kernel_allowed("batch_norm_memsets_merged")) return MemsetPlacement::one_kernel;
  if (sdk::fused_kernel_allowed("batch_norm_memsets_shifted")) return MemsetPlacement::one_call_early;
  return MemsetPlacement::at_start;
}

// Once per kind of graph (the step graph, a region's forward or backward graph): a training run
// records one per batch shape, and they all say the same.
bool first_time(const char* what) {
  static std::mutex mutex;
  static std::set<std::string> said;
  const std::lock_guard<std::mutex> lock(mutex);
  return said.insert(what).second;
}

void say_what_moved(const MemsetSurgery& surgery, MemsetPlacement placement, const char* what) {
  const char* where = placement == MemsetPlacement::at_start         ? "now wait for nothing"
                      : placement == MemsetPlacement::one_call_early ? "now wait beside the call before theirs"
                      : placement == MemsetPlacement::one_kernel     ? "are cleared at the graph's start"
                                                                     : "are cleared ahead of the whole graph";
  log::info("fused_kernels: ", surgery.unchained, " of ", what, " ", surgery.memsets,
            " memsets clear a BatchNorm layer's own workspace and ", where,
            " instead of waiting for the kernel before their call (batch_norm_memsets); ", surgery.shared,
            " left in place (a workspace used by more than one call)");
  if (placement == MemsetPlacement::one_kernel || placement == MemsetPlacement::one_kernel_leading) {
    log::info("fused_kernels: ", surgery.merged, " of them replaced by ", surgery.kernel_nodes,
              " zero-span kernel node(s)",
              surgery.no_merge_kernel ? " (none: this build has no CUDA kernels of core's, so they only moved)" : "");
  }
}
#endif

}  // namespace

bool edit_memsets() {
  if (!sdk::batch_norm_memsets_allowed()) return false;
  if (!kCanEditGraphs) {
    static std::once_flag said;
    std::call_once(said, [] {
      log::info("fused_kernels: batch_norm_memsets leaves the recorded memsets as they are (it needs LibTorch 2.9 or "
                "later to edit a graph before it is instantiated)");
    });
  }
  return kCanEditGraphs;
}

std::unique_ptr<at::cuda::CUDAGraph> new_graph(bool keep) {
#ifdef LIBREYOLO_CAN_EDIT_GRAPHS
  return std::make_unique<at::cuda::CUDAGraph>(/*keep_graph=*/keep);
#else
  (void)keep;
  return std::make_unique<at::cuda::CUDAGraph>();
#endif
}

std::int64_t unchain_and_instantiate(at::cuda::CUDAGraph& graph, const char* what) {
#ifdef LIBREYOLO_CAN_EDIT_GRAPHS
  const auto placement = memset_placement();
  const auto surgery = unchain_workspace_memsets(graph.raw_cuda_graph(), sdk::claimed_workspaces(), placement);
  const bool fill = sdk::fused_kernel_allowed("memset_kernel_nodes");
  const bool copy = sdk::fused_kernel_allowed("copy_kernel_nodes");
  const int filled = fill ? memsets_to_kernel_nodes(graph.raw_cuda_graph()) : 0;
  const int copied = copy ? memcpys_to_kernel_nodes(graph.raw_cuda_graph()) : 0;
  const int copies_left = fill || copy ? memcpy_nodes(graph.raw_cuda_graph()) : 0;
  graph.instantiate();
  if (first_time(what)) {
    say_what_moved(surgery, placement, what);
    if (fill || copy) {
      log::info("fused_kernels: ", filled, " of ", what, " memset nodes (memset_kernel_nodes) and ", copied,
                " memcpy nodes (copy_kernel_nodes) became kernel nodes; ", copies_left, " memcpy nodes left as they are");
    }
  }
  return surgery.unchained + filled + copied;
#else
  (void)graph;
  (void)what;
  return 0;
#endif
}

}  // namespace libreyolo::core::capture::cuda_support
