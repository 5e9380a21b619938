// graph_rewiring.hpp, the edits memset_kernel_nodes and copy_kernel_nodes make to a recorded CUDA
// graph, run on a stand-in graph that refuses what the CUDA runtime refuses (an edge twice, an
// edge from or to a destroyed node: the forty-seventh session's first GPU run failed on the
// latter). Every node replaced keeps its place in the order: whatever reached it, or what it
// reached, still does through its stand-in, and the graph stays acyclic.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../../../core/src/capture/graph_rewiring.hpp"

using libreyolo::core::capture::GraphShape;
using libreyolo::core::capture::replace_with_stand_ins;

namespace {

// Nodes are ints; `kind` marks the ones to replace ('m', memsets) and the rest ('k', kernels).
struct StandInGraph {
  using Node = int;
  std::map<int, char> kind;
  std::set<std::pair<int, int>> edges;
  std::set<int> destroyed;

  int add_node(char k) {
    const int id = static_cast<int>(kind.size() + destroyed.size());
    kind[id] = k;
    return id;
  }
  void add_edge(int from, int to) {
    if (!kind.count(from) || !kind.count(to)) throw std::invalid_argument("an edge from or to a destroyed node");
    if (!edges.insert({from, to}).second) throw std::invalid_argument("an edge twice");
  }
  void remove_edge(int from, int to) {
    if (edges.erase({from, to}) == 0) throw std::invalid_argument("no such edge");
  }
  void destroy(int node) {
    if (!kind.erase(node)) throw std::invalid_argument("destroyed twice");
    destroyed.insert(node);
    for (auto it = edges.begin(); it != edges.end();) it = (it->first == node || it->second == node) ? edges.erase(it) : ++it;
  }

  GraphShape<int> shape() const {
    std::vector<int> nodes, from, to;
    for (const auto& [node, k] : kind) nodes.push_back(node);
    for (const auto& [a, b] : edges) {
      from.push_back(a);
      to.push_back(b);
    }
    return GraphShape<int>::of(nodes, from, to);
  }
  bool reaches(int from, int to) const {
    std::vector<int> stack{from};
    std::set<int> seen;
    while (!stack.empty()) {
      const int node = stack.back();
      stack.pop_back();
      if (node == to) return true;
      if (!seen.insert(node).second) continue;
      for (const auto& [a, b] : edges) {
        if (a == node) stack.push_back(b);
      }
    }
    return false;
  }
};

// Replaces every 'm' node by a new 'f' node (the fill kernel's); returns old -> new.
std::map<int, int> replace_memsets(StandInGraph& graph) {
  auto shape = graph.shape();
  std::map<int, int> replaced;
  const int count = replace_with_stand_ins(graph, shape, [&](int node, int* added) {
    if (graph.kind.at(node) != 'm') return false;
    *added = graph.add_node('f');
    replaced[node] = *added;
    return true;
  });
  CHECK(count == static_cast<int>(replaced.size()));
  return replaced;
}

// Every ordering the graph had between two nodes holds after the edit, a replaced node's through
// its stand-in; no memset is left; and the graph is still acyclic (shape() would throw).
void check_order_kept(const StandInGraph& before, const StandInGraph& after, const std::map<int, int>& replaced) {
  auto now = [&](int node) { return replaced.count(node) ? replaced.at(node) : node; };
  for (const auto& [a, ka] : before.kind) {
    for (const auto& [b, kb] : before.kind) {
      if (a != b && before.reaches(a, b)) {
        CAPTURE(a);
        CAPTURE(b);
        CHECK(after.reaches(now(a), now(b)));
      }
    }
  }
  for (const auto& [node, k] : after.kind) CHECK(k != 'm');
  CHECK_NOTHROW(after.shape());
}

}  // namespace

TEST_CASE("graph rewiring: memsets that follow memsets become a chain of stand-ins (run47d's graph)") {
  StandInGraph g;
  const int a = g.add_node('k'), m1 = g.add_node('m'), m2 = g.add_node('m'), m3 = g.add_node('m'), b = g.add_node('k');
  for (auto [from, to] : std::vector<std::pair<int, int>>{{a, m1}, {m1, m2}, {m2, m3}, {m3, b}}) g.add_edge(from, to);
  const StandInGraph before = g;
  const auto replaced = replace_memsets(g);
  REQUIRE(replaced.size() == 3);
  const int f1 = replaced.at(m1), f2 = replaced.at(m2), f3 = replaced.at(m3);
  CHECK(g.edges == std::set<std::pair<int, int>>{{a, f1}, {f1, f2}, {f2, f3}, {f3, b}});
  check_order_kept(before, g, replaced);
}

TEST_CASE("graph rewiring: roots, leaves, forks and joins keep their edges; a node the stand-in refuses stays") {
  StandInGraph g;
  const int root_memset = g.add_node('m'), a = g.add_node('k'), c = g.add_node('k'), fork = g.add_node('m'),
            b1 = g.add_node('k'), b2 = g.add_node('k'), leaf_memset = g.add_node('m'), kept = g.add_node('c');
  for (auto [from, to] : std::vector<std::pair<int, int>>{
           {root_memset, a}, {a, fork}, {c, fork}, {fork, b1}, {fork, b2}, {b1, leaf_memset}, {b2, kept}, {kept, leaf_memset}}) {
    g.add_edge(from, to);
  }
  const StandInGraph before = g;
  const auto replaced = replace_memsets(g);
  CHECK(replaced.size() == 3);
  CHECK(g.kind.at(kept) == 'c');  // not a memset: left with its edges
  CHECK(g.edges.count({b2, kept}) == 1);
  CHECK(g.edges.count({kept, replaced.at(leaf_memset)}) == 1);
  CHECK(g.edges.count({replaced.at(root_memset), a}) == 1);
  check_order_kept(before, g, replaced);
}

TEST_CASE("graph rewiring: random graphs keep every ordering through the stand-ins") {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    StandInGraph g;
    const int n = 2 + static_cast<int>(rng() % 24);
    for (int i = 0; i < n; ++i) g.add_node(rng() % 3 == 0 ? 'm' : 'k');
    for (int from = 0; from < n; ++from) {  // edges only forward in id order: acyclic
      for (int to = from + 1; to < n; ++to) {
        if (rng() % 5 == 0) g.add_edge(from, to);
      }
    }
    const StandInGraph before = g;
    const auto replaced = replace_memsets(g);
    check_order_kept(before, g, replaced);
    CHECK(g.kind.size() == before.kind.size());
  }
}

TEST_CASE("graph shape: one topological order, and a cycle is refused") {
  const auto shape = GraphShape<int>::of({0, 1, 2, 3}, {2, 0, 1}, {3, 1, 3});
  auto at = [&](int node) { return std::find(shape.order.begin(), shape.order.end(), node) - shape.order.begin(); };
  CHECK(shape.order.size() == 4);
  CHECK(at(0) < at(1));
  CHECK(at(1) < at(3));
  CHECK(at(2) < at(3));
  CHECK(shape.predecessors(3) == std::vector<int>{2, 1});
  CHECK(shape.successors(3).empty());
  CHECK_THROWS_AS(GraphShape<int>::of({0, 1}, {0, 1}, {1, 0}), std::runtime_error);
}
