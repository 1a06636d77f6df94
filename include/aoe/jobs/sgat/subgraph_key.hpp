// The graph-bank key of a subgraph: its structure (operator types in order, how they are wired,
// every tensor's shape, dtype and format, attributes, which tensors leave the subgraph), written
// as a canonical text and hashed to 64 bits. AOE writes a subgraph's `repo_key` as a decimal
// number ("1024942313106047484", docs/aoe-facts.md#subgraph-graph-bank); so do we. The hash is
// FNV-1a over the text's bytes: the same on every run, compiler and platform (std::hash is not).
#ifndef AOE_JOBS_SGAT_SUBGRAPH_KEY_HPP
#define AOE_JOBS_SGAT_SUBGRAPH_KEY_HPP

#include "aoe/graph/graph.hpp"
#include "aoe/graph/graph_index.hpp"
#include "aoe/jobs/sgat/subgraph_split.hpp"
#include "aoe/op/bank_key.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace aoe {

/// A subgraph's key: the canonical text and its 64-bit hash, in AOE's decimal form.
struct SubgraphKey {
  std::string signature;   ///< canonical structure text (stored in the bank to detect collisions)
  std::uint64_t hash = 0;  ///< FNV-1a 64 of `signature`
  [[nodiscard]] std::string repo_key() const { return std::to_string(hash); }
};

/// FNV-1a, 64 bits (offset basis 14695981039346656037, prime 1099511628211): a fixed function of
/// the bytes, so keys are stable across runs and platforms.
[[nodiscard]] constexpr std::uint64_t subgraph_key_hash(std::string_view s) noexcept {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

/// The canonical text of subgraph `s` of `g`: "sgat1;" then, per node in order,
/// "<local index>:<type>(<inputs>)-><outputs>{<attributes>};" where an input is "@j.k" (output k
/// of local node j) or "ext" (produced outside: a graph input, a weight or an earlier
/// subgraph's output) followed by ":[shape]:dtype:format", and an output ends in "!" when it is
/// read outside the subgraph or by no node (a model output). Node and tensor names are not part
/// of it: two subgraphs computing the same thing share their strategy.
/// `index` is the graph's index: the readers of each tensor are looked up, not scanned for.
[[nodiscard]] inline std::string subgraph_signature(const GraphIndex& index, const Subgraph& s) {
  const Graph& g = index.graph();
  std::map<std::string, std::pair<std::size_t, std::size_t>> local;  // tensor -> (node, output)
  for (std::size_t i = s.begin; i < s.end; ++i) {
    for (std::size_t k = 0; k < g.nodes[i].outputs.size(); ++k) {
      local.emplace(g.nodes[i].outputs[k].name, std::make_pair(i - s.begin, k));
    }
  }
  // A produced tensor stays inside only if it has readers and all of them are inside.
  const auto escapes = [&index, &s](const std::string& name) {
    const auto readers = index.consumers(name);  // ascending
    return readers.empty() || readers.front() < s.begin || readers.back() >= s.end;
  };
  std::string text = "sgat1;";
  for (std::size_t i = s.begin; i < s.end; ++i) {
    const Node& n = g.nodes[i];
    text += std::to_string(i - s.begin);
    text += ':';
    text += n.type;
    text += '(';
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      if (k > 0) text += ',';
      const auto it = local.find(n.inputs[k].name);
      if (it != local.end()) {
        text += '@' + std::to_string(it->second.first) + '.' + std::to_string(it->second.second);
      } else {
        text += "ext";
      }
      text += ':';
      detail::append_shape(text, n.inputs[k].desc);
    }
    text += ")->";
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (k > 0) text += ',';
      detail::append_shape(text, n.outputs[k].desc);
      if (escapes(n.outputs[k].name)) text += '!';
    }
    text += '{';
    detail::append_attributes(text, n.attributes);
    text += "};";
  }
  return text;
}

/// The signature of subgraph `s` of `g` (one pass over `g` to index it: for many subgraphs of
/// one graph, index it once and pass the index).
[[nodiscard]] inline std::string subgraph_signature(const Graph& g, const Subgraph& s) {
  return subgraph_signature(GraphIndex(g), s);
}

/// The key of subgraph `s` of the graph of `index`.
[[nodiscard]] inline SubgraphKey make_subgraph_key(const GraphIndex& index, const Subgraph& s) {
  SubgraphKey k;
  k.signature = subgraph_signature(index, s);
  k.hash = subgraph_key_hash(k.signature);
  return k;
}

/// The key of subgraph `s` of `g` (one pass over `g` to index it: for many subgraphs of one
/// graph, index it once and pass the index).
[[nodiscard]] inline SubgraphKey make_subgraph_key(const Graph& g, const Subgraph& s) {
  return make_subgraph_key(GraphIndex(g), s);
}

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SUBGRAPH_KEY_HPP
