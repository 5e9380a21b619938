// workspace_memsets.hpp: the graph's nodes in one topological order (Kahn's), the memsets that
// qualify, the rewiring, and the merge into zero-span kernel nodes. CUDA 13 gave the edge functions
// an edge-data argument; all_edges, add_edge and remove_edge hide the difference. A failed CUDA
// call throws, and the recorder then falls back to eager steps as for any failed capture.
#include "workspace_memsets.hpp"

#include "graph_rewiring.hpp"
#include "cuda/copy_node_kernel.hpp"
#include "cuda/fill_node_kernel.hpp"
#include "cuda/zero_spans_kernel.hpp"

#include <c10/util/Exception.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

namespace libreyolo::core::capture::cuda_support {
namespace {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  // Take the error out of the runtime's last-error slot: the step falls back to eager, and
  // PyTorch's next kernel launch would otherwise find it there and fail (run47d, an H100).
  (void)cudaGetLastError();
  TORCH_CHECK(false, "cuda_graph: ", what, " failed: ", cudaGetErrorString(status));
}

using Nodes = std::vector<cudaGraphNode_t>;

Nodes all_nodes(cudaGraph_t graph) {
  std::size_t count = 0;
  check(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes");
  Nodes nodes(count);
  if (count > 0) check(cudaGraphGetNodes(graph, nodes.data(), &count), "cudaGraphGetNodes");
  return nodes;
}

std::pair<Nodes, Nodes> all_edges(cudaGraph_t graph) {
  std::size_t count = 0;
#if CUDART_VERSION >= 13000
  // With the edges' data: a query without it fails where a kernel waits programmatically (PDL).
  check(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count), "cudaGraphGetEdges");
  Nodes from(count), to(count);
  std::vector<cudaGraphEdgeData> data(count);
  if (count > 0) check(cudaGraphGetEdges(graph, from.data(), to.data(), data.data(), &count), "cudaGraphGetEdges");
#else
  check(cudaGraphGetEdges(graph, nullptr, nullptr, &count), "cudaGraphGetEdges");
  Nodes from(count), to(count);
  if (count > 0) check(cudaGraphGetEdges(graph, from.data(), to.data(), &count), "cudaGraphGetEdges");
#endif
  return {from, to};
}

void add_edge(cudaGraph_t graph, cudaGraphNode_t from, cudaGraphNode_t to) {
#if CUDART_VERSION >= 13000
  check(cudaGraphAddDependencies(graph, &from, &to, nullptr, 1), "cudaGraphAddDependencies");
#else
  check(cudaGraphAddDependencies(graph, &from, &to, 1), "cudaGraphAddDependencies");
#endif
}

void remove_edge(cudaGraph_t graph, cudaGraphNode_t from, cudaGraphNode_t to) {
#if CUDART_VERSION >= 13000
  check(cudaGraphRemoveDependencies(graph, &from, &to, nullptr, 1), "cudaGraphRemoveDependencies");
#else
  check(cudaGraphRemoveDependencies(graph, &from, &to, 1), "cudaGraphRemoveDependencies");
#endif
}

// The recorded graph as graph_rewiring.hpp's edits see it.
struct CudaGraph {
  using Node = cudaGraphNode_t;
  cudaGraph_t graph;
  void add_edge(Node from, Node to) { cuda_support::add_edge(graph, from, to); }
  void remove_edge(Node from, Node to) { cuda_support::remove_edge(graph, from, to); }
  void destroy(Node node) { check(cudaGraphDestroyNode(node), "cudaGraphDestroyNode"); }
};

using Shape = GraphShape<cudaGraphNode_t>;

Shape shape_of(cudaGraph_t graph) {
  const auto [from, to] = all_edges(graph);
  return Shape::of(all_nodes(graph), from, to);
}

// The workspace a memset node clears wholly, with value 0, when exactly one call claimed it.
const sdk::WorkspaceRange* workspace_cleared(cudaGraphNode_t node, const std::vector<sdk::WorkspaceRange>& workspaces) {
  cudaMemsetParams p{};
  check(cudaGraphMemsetNodeGetParams(node, &p), "cudaGraphMemsetNodeGetParams");
  if (p.value != 0) return nullptr;
  const auto begin = reinterpret_cast<std::uintptr_t>(p.dst);
  const auto rows = std::max<std::size_t>(p.height, 1);
  const auto end = begin + (rows - 1) * p.pitch + std::size_t(p.elementSize) * p.width;
  for (const auto& w : workspaces) {
    if (w.claims == 1 && begin >= w.begin && end <= w.end) return &w;
  }
  return nullptr;
}

bool is_of_type(cudaGraphNode_t node, cudaGraphNodeType wanted) {
  cudaGraphNodeType type;
  check(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType");
  return type == wanted;
}

bool is_memset(cudaGraphNode_t node) { return is_of_type(node, cudaGraphNodeTypeMemset); }

// The placements whose memsets one kernel node clears.
bool merges(MemsetPlacement placement) {
  return placement == MemsetPlacement::one_kernel || placement == MemsetPlacement::one_kernel_leading;
}

// What waited for `memset` now also waits for what it waited for, and it waits for nothing;
// returns what it waited for.
Nodes unchain(CudaGraph& g, Shape& s, cudaGraphNode_t memset) {
  const Nodes waited_for = s.predecessors(memset);
  for (auto p : waited_for) {
    for (auto successor : s.successors(memset)) s.connect(g, p, successor);
    s.disconnect(g, p, memset);
  }
  return waited_for;
}

// The moved memsets that one kernel node can clear instead: one span of at most 4 KB each.
struct Merge {
  std::vector<kernels::ZeroSpan> spans;
  Nodes memsets;
};

void add_to_merge(Merge& merge, cudaGraphNode_t memset) {
  cudaMemsetParams p{};
  check(cudaGraphMemsetNodeGetParams(memset, &p), "cudaGraphMemsetNodeGetParams");
  const std::size_t bytes = std::size_t(p.elementSize) * p.width;
  if (p.height > 1 || bytes > 4096) return;  // stays a memset node, moved
  kernels::ZeroSpan span;
  span.dst = p.dst;
  span.bytes = static_cast<std::uint32_t>(bytes);
  merge.spans.push_back(span);
  merge.memsets.push_back(memset);
}

// The nodes that wait for nothing now, the destroyed and added ones aside (edges from a destroyed
// node are still in s.edges: CUDA dropped them with the node).
Nodes current_roots(const Shape& s, const std::set<cudaGraphNode_t>& aside) {
  std::set<cudaGraphNode_t> waiting;
  for (const auto& [from, to] : s.edges) {
    if (aside.count(from) == 0) waiting.insert(to);
  }
  Nodes roots;
  for (auto node : s.order) {
    if (aside.count(node) == 0 && waiting.count(node) == 0) roots.push_back(node);
  }
  return roots;
}

// The merged memsets' successors wait for zero-span kernel nodes at the graph's start instead;
// the memset nodes go. `leading`: the kernel nodes go ahead of every root instead of one edge to
// each successor (every node is reachable from a root, so the order holds). Returns the nodes added.
int replace_by_kernel_nodes(cudaGraph_t graph, Shape& s, const Merge& merge, bool leading) {
  CudaGraph g{graph};
  const auto per_node = static_cast<std::size_t>(kernels::zero_spans_per_node());
  std::set<cudaGraphNode_t> aside(merge.memsets.begin(), merge.memsets.end());
  Nodes added;
  for (std::size_t first = 0; first < merge.spans.size(); first += per_node) {
    const auto count = std::min(per_node, merge.spans.size() - first);
    cudaGraphNode_t node = nullptr;
    check(kernels::add_zero_spans_node(graph, merge.spans.data() + first, static_cast<int>(count), &node),
          "adding the zero-span kernel node");
    added.push_back(node);
    aside.insert(node);
    for (std::size_t i = first; i < first + count; ++i) {
      if (!leading) {
        for (auto successor : s.successors(merge.memsets[i])) s.connect(g, node, successor);
      }
      g.destroy(merge.memsets[i]);
    }
  }
  if (leading && !added.empty()) {
    for (auto root : current_roots(s, aside)) {
      for (auto node : added) s.connect(g, node, root);
    }
  }
  return static_cast<int>(added.size());
}

// The memset nodes inside a workspace exactly one call claimed, in topological order, and how
// many others there are.
Nodes qualifying_memsets(const Shape& s, const std::vector<sdk::WorkspaceRange>& workspaces, MemsetSurgery& surgery) {
  std::map<const sdk::WorkspaceRange*, Nodes> by_workspace;
  Nodes candidates;
  for (auto node : s.order) {
    if (!is_memset(node)) continue;
    ++surgery.memsets;
    if (const auto* w = workspace_cleared(node, workspaces)) {
      by_workspace[w].push_back(node);
      candidates.push_back(node);
    }
  }
  Nodes qualifying;
  for (auto memset : candidates) {
    if (by_workspace[workspace_cleared(memset, workspaces)].size() == 1) qualifying.push_back(memset);
    else ++surgery.shared;
  }
  return qualifying;
}

}  // namespace

MemsetSurgery unchain_workspace_memsets(cudaGraph_t graph, const std::vector<sdk::WorkspaceRange>& workspaces,
                                        MemsetPlacement placement) {
  MemsetSurgery surgery;
  Shape s = shape_of(graph);
  CudaGraph g{graph};
  if (merges(placement) && kernels::zero_spans_per_node() == 0) {
    placement = MemsetPlacement::at_start;  // this build has no such kernel
    surgery.no_merge_kernel = true;
  }
  const bool merging = merges(placement);
  Merge merge;
  Nodes previous_waited_for;
  for (auto memset : qualifying_memsets(s, workspaces, surgery)) {
    const Nodes waited_for = unchain(g, s, memset);
    if (placement == MemsetPlacement::one_call_early) {
      for (auto p : previous_waited_for) s.connect(g, p, memset);
    }
    if (merging) add_to_merge(merge, memset);
    previous_waited_for = waited_for;
    ++surgery.unchained;
  }
  surgery.kernel_nodes =
      replace_by_kernel_nodes(graph, s, merge, placement == MemsetPlacement::one_kernel_leading);
  surgery.merged = static_cast<int>(merge.memsets.size());
  return surgery;
}

int memcpy_nodes(cudaGraph_t graph) {
  int count = 0;
  for (auto node : all_nodes(graph)) count += is_of_type(node, cudaGraphNodeTypeMemcpy) ? 1 : 0;
  return count;
}

namespace {

// Every node of `type` for which `add_kernel` adds a stand-in kernel node (returning false where
// it cannot, leaving that node) is replaced by it, with the same edges (graph_rewiring.hpp).
template <typename AddKernel>
int replace_with_kernel_nodes(cudaGraph_t graph, cudaGraphNodeType type, AddKernel add_kernel) {
  Shape s = shape_of(graph);
  CudaGraph g{graph};
  return replace_with_stand_ins(g, s, [&](cudaGraphNode_t node, cudaGraphNode_t* kernel) {
    return is_of_type(node, type) && add_kernel(node, kernel);
  });
}

}  // namespace

int memsets_to_kernel_nodes(cudaGraph_t graph) {
  if (!kernels::fill_nodes_built()) return 0;
  return replace_with_kernel_nodes(graph, cudaGraphNodeTypeMemset, [graph](cudaGraphNode_t memset, cudaGraphNode_t* fill) {
    cudaMemsetParams p{};
    check(cudaGraphMemsetNodeGetParams(memset, &p), "cudaGraphMemsetNodeGetParams");
    check(kernels::add_fill_node(graph, p, fill), "adding a fill kernel node");
    return true;
  });
}

int memcpys_to_kernel_nodes(cudaGraph_t graph) {
  if (!kernels::fill_nodes_built()) return 0;
  return replace_with_kernel_nodes(graph, cudaGraphNodeTypeMemcpy, [graph](cudaGraphNode_t memcpy, cudaGraphNode_t* copy) {
    cudaMemcpy3DParms p{};
    check(cudaGraphMemcpyNodeGetParams(memcpy, &p), "cudaGraphMemcpyNodeGetParams");
    const cudaError_t added = kernels::add_copy_node(graph, p, copy);
    if (added == cudaErrorNotSupported) return false;  // not device to device: it stays a memcpy node
    check(added, "adding a copy kernel node");
    return true;
  });
}

}  // namespace libreyolo::core::capture::cuda_support
