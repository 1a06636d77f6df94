// SGAT's split of a model into subgraphs (docs/sgat.md#the-split-rule): the graph is cut, in
// node order, after a node where exactly one tensor produced so far is still needed later and
// that tensor has two or more consumers: the start of a residual block (ResNet) or of a
// transformer sub-layer (BERT), where the whole state of the network is one tensor. A subgraph
// that reaches `max_kernels` operators without such a point is cut at the next position that
// splits no fused operator. Deterministic: the same graph always gives the same subgraphs.
#ifndef AOE_JOBS_SGAT_SUBGRAPH_SPLIT_HPP
#define AOE_JOBS_SGAT_SUBGRAPH_SPLIT_HPP

#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/graph_index.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aoe {

/// One subgraph: a contiguous range of the graph's nodes (in topological order).
struct Subgraph {
  std::size_t index = 0;    ///< position in the model, 0-based
  std::size_t begin = 0;    ///< first node (index into Graph::nodes)
  std::size_t end = 0;      ///< one past the last node
  std::size_t kernels = 0;  ///< nodes that run a kernel (not layout-only)
  /// "<first kernel node>..<last kernel node>", for progress lines and reports.
  std::string name;
};

/// Bounds of the split. Aggregate: `aoe::SplitOptions{.max_kernels = 24}`.
struct SplitOptions {
  /// A cut point is taken only once the subgraph holds this many kernels, so that a fork right
  /// after the previous cut does not make a subgraph of one operator.
  std::size_t min_kernels = 2;
  /// A subgraph that reaches this many kernels without a cut point is cut anyway (at the next
  /// position that splits no fused operator), bounding the strategy space of each subgraph.
  std::size_t max_kernels = 32;
};

namespace detail {

/// For each position p (a cut after node p), whether it is a fork: exactly one produced tensor
/// is live across it and that tensor has two or more reads (input references). One pass over
/// the nodes' outputs and one over their inputs (a lookup in the index each); the tensors'
/// producer, last reader and read count side by side, so an input touches one record.
inline std::vector<char> sgat_forks(const GraphIndex& index) {
  const Graph& g = index.graph();
  const std::size_t n = g.nodes.size();
  struct Life {
    std::size_t producer;
    std::size_t last_use;
    std::size_t reads;
  };
  std::vector<std::size_t> first_output(n + 1, 0);  // tensor id of node i's output 0
  std::size_t tensors = 0;
  for (std::size_t i = 0; i < n; ++i) {
    first_output[i] = tensors;
    tensors += g.nodes[i].outputs.size();
  }
  first_output[n] = tensors;
  std::vector<Life> life(tensors);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t t = first_output[i]; t < first_output[i + 1]; ++t) life[t] = {i, i, 0};
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < g.nodes[i].inputs.size(); ++r) {
      const auto& in = g.nodes[i].inputs[r];
      const auto p = index.input_producer(i, r);  // by reference: no name looked up
      if (!p) continue;  // a graph input (data or weight): always available
      const auto& outs = g.nodes[*p].outputs;
      std::size_t k = 0;
      while (outs[k].name != in.name) ++k;
      Life& t = life[first_output[*p] + k];
      t.last_use = std::max(t.last_use, i);
      ++t.reads;
    }
  }
  // Difference arrays: tensor t is live across the cuts producer(t) .. last_use(t) - 1; the
  // XOR of the live tensors' ids names the tensor where exactly one is live.
  struct Delta {
    std::ptrdiff_t count;
    std::size_t ids;
  };
  std::vector<Delta> delta(n + 1, Delta{0, 0});
  for (std::size_t t = 0; t < tensors; ++t) {
    if (life[t].last_use <= life[t].producer) continue;
    ++delta[life[t].producer].count;
    --delta[life[t].last_use].count;
    delta[life[t].producer].ids ^= t;
    delta[life[t].last_use].ids ^= t;
  }
  std::vector<char> fork(n, 0);
  std::ptrdiff_t c = 0;
  std::size_t x = 0;
  for (std::size_t p = 0; p < n; ++p) {
    c += delta[p].count;
    x ^= delta[p].ids;
    fork[p] = static_cast<char>(c == 1 && life[x].reads >= 2);
  }
  return fork;
}

}  // namespace detail

/// Splits `g` into subgraphs by the rule above. Every node belongs to exactly one subgraph;
/// a subgraph has at least one kernel (a trailing run of layout-only nodes joins the last).
[[nodiscard]] inline std::vector<Subgraph> split_subgraphs(const Graph& g,
                                                           const SplitOptions& options = {}) {
  const std::size_t n = g.nodes.size();
  std::vector<Subgraph> out;
  if (n == 0) return out;
  const GraphIndex index(g);  // one pass, shared by the liveness and the fusion
  const auto forks = detail::sgat_forks(index);
  // A position straddled by a fused operator (OPAT's fusion) is never a cut.
  std::vector<bool> straddled(n, false);
  for_each_fusion_group(index, {}, [&straddled](const std::vector<std::size_t>& members) {
    const auto [lo, hi] = std::minmax_element(members.begin(), members.end());
    for (std::size_t p = *lo; p < *hi; ++p) straddled[p] = true;
  });
  const std::size_t max_kernels = std::max<std::size_t>(1, options.max_kernels);
  std::size_t start = 0;
  std::size_t kernels = 0;
  const auto close = [&](std::size_t last) {
    Subgraph s;
    s.index = out.size();
    s.begin = start;
    s.end = last + 1;
    s.kernels = kernels;
    out.push_back(s);
    start = last + 1;
    kernels = 0;
  };
  for (std::size_t p = 0; p < n; ++p) {
    if (!is_layout_only(g.nodes[p].type)) ++kernels;
    if (p + 1 == n) break;
    const bool fork = forks[p] != 0;
    if (straddled[p] || kernels == 0) continue;
    if ((fork && kernels >= options.min_kernels) || kernels >= max_kernels) close(p);
  }
  if (kernels == 0 && !out.empty()) {
    out.back().end = n;  // only layout-only nodes are left: they join the last subgraph
  } else {
    close(n - 1);
  }
  for (auto& s : out) {
    std::size_t first = s.end;
    std::size_t last = s.begin;
    for (std::size_t i = s.begin; i < s.end; ++i) {
      if (is_layout_only(g.nodes[i].type)) continue;
      first = std::min(first, i);
      last = i;
    }
    if (first == s.end) first = last = s.begin;
    s.name = g.nodes[first].name + (first == last ? "" : ".." + g.nodes[last].name);
  }
  return out;
}

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SUBGRAPH_SPLIT_HPP
