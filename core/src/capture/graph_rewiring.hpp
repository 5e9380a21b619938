#pragma once
// The graph edits of workspace_memsets.cpp, written over any graph type so that the CPU tests can
// run them on a stand-in graph (tests/unit/capture/test_graph_rewiring.cpp) and the CUDA build on a
// cudaGraph_t: a graph's shape (adjacency and one topological order), and the replacement of
// chosen nodes by stand-ins with the same edges. Private to core/src/capture/; no CUDA here.
//
// A Graph type provides:
//   using Node = ...;                      // copyable, ordered (std::map key)
//   void add_edge(Node from, Node to);     // refuses an edge twice, or one from or to a destroyed node
//   void remove_edge(Node from, Node to);
//   void destroy(Node node);               // drops the node and every edge from or to it
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

namespace libreyolo::core::capture {

template <typename Node>
struct GraphShape {
  using Nodes = std::vector<Node>;
  std::map<Node, Nodes> before, after;  // as recorded
  Nodes order;                          // one topological order (Kahn's)
  std::set<std::pair<Node, Node>> edges;  // as they are now (edges of a destroyed node may linger)

  // The graph's nodes and edges (edge i goes from[i] -> to[i]); throws if they hold a cycle.
  static GraphShape of(const Nodes& nodes, const Nodes& from, const Nodes& to) {
    GraphShape s;
    std::map<Node, int> waiting;
    for (const auto& node : nodes) waiting[node] = 0;
    for (std::size_t i = 0; i < from.size(); ++i) {
      s.after[from[i]].push_back(to[i]);
      s.before[to[i]].push_back(from[i]);
      s.edges.insert({from[i], to[i]});
      ++waiting[to[i]];
    }
    for (const auto& node : nodes) {
      if (waiting[node] == 0) s.order.push_back(node);
    }
    for (std::size_t next = 0; next < s.order.size(); ++next) {
      for (const auto& successor : s.after[s.order[next]]) {
        if (--waiting[successor] == 0) s.order.push_back(successor);
      }
    }
    if (s.order.size() != nodes.size()) throw std::runtime_error("cuda_graph: the recorded step graph is not acyclic");
    return s;
  }

  Nodes predecessors(const Node& node) const {
    const auto found = before.find(node);
    return found == before.end() ? Nodes{} : found->second;
  }
  Nodes successors(const Node& node) const {
    const auto found = after.find(node);
    return found == after.end() ? Nodes{} : found->second;
  }

  // The graph refuses an edge twice: these ask the edge set first.
  template <typename Graph>
  void connect(Graph& graph, const Node& from, const Node& to) {
    if (edges.insert({from, to}).second) graph.add_edge(from, to);
  }
  template <typename Graph>
  void disconnect(Graph& graph, const Node& from, const Node& to) {
    if (edges.erase({from, to}) > 0) graph.remove_edge(from, to);
  }
};

// Every node of `shape.order` that `stand_in(node, &added)` replaces (it adds a node without edges
// and returns true; false leaves the node as it is) gives its edges to the stand-in and is
// destroyed. Taken in topological order, so a node's replaced predecessors already have stand-ins,
// which take the edges in their place (a destroyed node cannot take an edge: run47d's first try).
// Returns how many nodes were replaced.
template <typename Graph, typename StandIn>
int replace_with_stand_ins(Graph& graph, GraphShape<typename Graph::Node>& shape, StandIn stand_in) {
  using Node = typename Graph::Node;
  std::map<Node, Node> replaced_by;
  for (const auto& node : shape.order) {
    Node added{};
    if (!stand_in(node, &added)) continue;
    for (const auto& predecessor : shape.predecessors(node)) {
      const auto replaced = replaced_by.find(predecessor);
      shape.connect(graph, replaced == replaced_by.end() ? predecessor : replaced->second, added);
    }
    for (const auto& successor : shape.successors(node)) shape.connect(graph, added, successor);
    graph.destroy(node);
    replaced_by[node] = added;
  }
  return static_cast<int>(replaced_by.size());
}

}  // namespace libreyolo::core::capture
