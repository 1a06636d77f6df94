// The producer and the consumers of every tensor of a graph, built in one pass over the graph so
// that fusion, SGAT's split and GDAT's derivation look a tensor up in O(1) instead of scanning
// every node (Graph::producer and Graph::consumers, O(nodes) each): what keeps the jobs linear
// in model size (docs/reliability.md#model-size).
#ifndef AOE_GRAPH_GRAPH_INDEX_HPP
#define AOE_GRAPH_GRAPH_INDEX_HPP

#include "aoe/graph/detail/name_table.hpp"
#include "aoe/graph/graph.hpp"

#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// Who produces and who reads each tensor of `graph`. Holds views of the graph's tensor names:
/// the graph must outlive the index and keep its nodes unchanged. Building it costs one pass
/// over the nodes' tensors (expected O(tensor references)); each lookup is expected O(1).
class GraphIndex {
 public:
  explicit GraphIndex(const Graph& graph) : graph_(&graph) {
    detail::count_graph_scan();
    const auto& nodes = graph.nodes;
    const auto id_of = [this](std::string_view name) {
      const auto [id, added] = ids_.insert(name);
      if (added) producer_.push_back(none);
      return id;
    };
    // (tensor id, reading node) in node order, a node reading a tensor twice counted once;
    // then a counting sort by tensor id keeps each tensor's readers ascending.
    std::vector<std::pair<std::size_t, std::size_t>> reads;
    std::vector<std::size_t> last_reader;
    std::size_t references = 0;
    for (const auto& node : nodes) references += node.inputs.size() + node.outputs.size();
    // Most tensors are referenced at least twice (produced, read): half the references is the
    // usual count of tensors, and the table grows past it if not.
    ids_.reserve(references / 2 + 1);
    producer_.reserve(references / 2 + 1);
    reads.reserve(references);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (const auto& o : nodes[i].outputs) {
        const auto id = id_of(o.name);
        if (producer_[id] == none) producer_[id] = i;  // the first, as Graph::producer
      }
      for (const auto& in : nodes[i].inputs) {
        const auto id = id_of(in.name);
        if (last_reader.size() < producer_.size()) last_reader.resize(producer_.size(), none);
        if (last_reader[id] == i) continue;
        last_reader[id] = i;
        reads.emplace_back(id, i);
      }
    }
    first_.assign(producer_.size() + 1, 0);
    for (const auto& r : reads) ++first_[r.first + 1];
    for (std::size_t t = 1; t < first_.size(); ++t) first_[t] += first_[t - 1];
    std::vector<std::size_t> next(first_.begin(), first_.end() - 1);
    consumers_.resize(reads.size());
    for (const auto& [id, node] : reads) consumers_[next[id]++] = node;
  }

  [[nodiscard]] const Graph& graph() const noexcept { return *graph_; }

  /// Index of the node producing `tensor`, or nullopt for a graph input (data, weight) or a
  /// name the graph does not use. The same answer as Graph::producer.
  [[nodiscard]] std::optional<std::size_t> producer(std::string_view tensor) const {
    const std::size_t id = ids_.find(tensor);
    if (id == detail::NameTable::npos || producer_[id] == none) return std::nullopt;
    return producer_[id];
  }

  /// Indices of the nodes reading `tensor`, ascending, each once. The same answer as
  /// Graph::consumers.
  [[nodiscard]] std::span<const std::size_t> consumers(std::string_view tensor) const {
    const std::size_t id = ids_.find(tensor);
    if (id == detail::NameTable::npos) return {};
    return std::span<const std::size_t>(consumers_)
        .subspan(first_[id], first_[id + 1] - first_[id]);
  }

  /// The only consumer of `node`'s single output, if it has exactly one output and that output
  /// exactly one reader.
  [[nodiscard]] std::optional<std::size_t> sole_consumer(std::size_t node) const {
    const auto& outputs = graph_->nodes[node].outputs;
    if (outputs.size() != 1) return std::nullopt;
    const auto c = consumers(outputs[0].name);
    if (c.size() != 1) return std::nullopt;
    return c[0];
  }

 private:
  static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

  const Graph* graph_;
  detail::NameTable ids_;               ///< tensor name -> tensor id (flat: no node per tensor)
  std::vector<std::size_t> producer_;   ///< by tensor id; `none`: an input
  std::vector<std::size_t> first_;      ///< by tensor id: its consumers in consumers_[first_..]
  std::vector<std::size_t> consumers_;  ///< node indices, grouped by tensor id
};

}  // namespace aoe

#endif  // AOE_GRAPH_GRAPH_INDEX_HPP
