// The producer and the consumers of every tensor of a graph, built in one pass over the graph so
// that fusion, SGAT's split and GDAT's derivation look a tensor up in O(1) instead of scanning
// every node (Graph::producer and Graph::consumers, O(nodes) each): what keeps the jobs linear
// in model size (docs/reliability.md#model-size).
#ifndef AOE_GRAPH_GRAPH_INDEX_HPP
#define AOE_GRAPH_GRAPH_INDEX_HPP

#include "aoe/graph/graph.hpp"
#include "aoe/graph/name_table.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// Who produces and who reads each tensor of `graph`. Holds views of the graph's tensor names:
/// the graph must outlive the index and keep its nodes unchanged. Building it costs one pass
/// over the nodes' tensors (expected O(tensor references)); each lookup is expected O(1).
class GraphIndex {
 public:
  explicit GraphIndex(const Graph& graph) : graph_(&graph), lazy_(std::make_unique<Lazy>()) {
    detail::count_graph_scan();
    std::size_t references = 0;
    for (const auto& node : graph.nodes) references += node.inputs.size() + node.outputs.size();
    ref_ids_.reserve(references);
    first_ref_.reserve(graph.nodes.size() + 1);
    if (!number_from_loader(references)) number_by_name(references);
    first_.assign(producer_.size() + 1, 0);
    // (tensor id, reading node) in node order, a node reading a tensor twice counted once;
    // then a counting sort by tensor id keeps each tensor's readers ascending.
    std::vector<std::uint32_t> last_reader(producer_.size(), none32);
    std::size_t reads = 0;
    const auto each_read = [&](auto&& read) {
      for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const std::size_t n_in = graph.nodes[i].inputs.size();
        for (std::size_t k = 0; k < n_in; ++k) {
          const std::uint32_t id = ref_ids_[first_ref_[i] + k];
          if (last_reader[id] == i) continue;
          last_reader[id] = static_cast<std::uint32_t>(i);
          read(id, i);
        }
      }
    };
    each_read([&](std::uint32_t id, std::size_t) {
      ++first_[id + 1];
      ++reads;
    });
    for (std::size_t t = 1; t < first_.size(); ++t) first_[t] += first_[t - 1];
    std::vector<std::size_t> next(first_.begin(), first_.end() - 1);
    consumers_.resize(reads);
    std::fill(last_reader.begin(), last_reader.end(), none32);
    each_read([&](std::uint32_t id, std::size_t node) { consumers_[next[id]++] = node; });
  }

  [[nodiscard]] const Graph& graph() const noexcept { return *graph_; }

  /// Index of the node producing `tensor`, or nullopt for a graph input (data, weight) or a
  /// name the graph does not use. The same answer as Graph::producer.
  [[nodiscard]] std::optional<std::size_t> producer(std::string_view tensor) const {
    const std::size_t id = id_of(tensor);
    if (id == detail::NameTable::npos) return std::nullopt;
    return producer_by_id(id);
  }

  /// Indices of the nodes reading `tensor`, ascending, each once. The same answer as
  /// Graph::consumers.
  [[nodiscard]] std::span<const std::size_t> consumers(std::string_view tensor) const {
    const std::size_t id = id_of(tensor);
    if (id == detail::NameTable::npos) return {};
    return consumers_by_id(id);
  }

  /// producer(graph().nodes[node].inputs[k].name), without looking the name up.
  [[nodiscard]] std::optional<std::size_t> input_producer(std::size_t node, std::size_t k) const {
    return producer_by_id(ref_ids_[first_ref_[node] + k]);
  }

  /// The only consumer of `node`'s single output, if it has exactly one output and that output
  /// exactly one reader.
  [[nodiscard]] std::optional<std::size_t> sole_consumer(std::size_t node) const {
    const auto& n = graph_->nodes[node];
    if (n.outputs.size() != 1) return std::nullopt;
    const auto c = consumers_by_id(ref_ids_[first_ref_[node] + n.inputs.size()]);
    if (c.size() != 1) return std::nullopt;
    return c[0];
  }

 private:
  static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  static constexpr std::uint32_t none32 = std::numeric_limits<std::uint32_t>::max();

  /// The name table, made on the first lookup by name (fusion needs none: it reaches tensors
  /// through their references); shared by the threads that read the index.
  struct Lazy {
    std::once_flag once;
    detail::NameTable ids;
  };

  [[nodiscard]] std::optional<std::size_t> producer_by_id(std::size_t id) const {
    if (producer_[id] == none) return std::nullopt;
    return producer_[id];
  }

  [[nodiscard]] std::span<const std::size_t> consumers_by_id(std::size_t id) const {
    return std::span<const std::size_t>(consumers_)
        .subspan(first_[id], first_[id + 1] - first_[id]);
  }

  [[nodiscard]] std::size_t id_of(std::string_view name) const {
    std::call_once(lazy_->once, [this] {
      lazy_->ids.reserve(names_.size());
      for (const auto& n : names_) {
        if (!lazy_->ids.insert(n).second) {
          throw std::logic_error("aoe::GraphIndex: tensor '" + std::string(n) +
                                 "' has two numbers in Graph::tensor_ids (clear them after "
                                 "renaming a loaded graph's tensors)");
        }
      }
    });
    return lazy_->ids.find(name);
  }

  /// The tensor ids of the graph's references, numbered in order of first reference (a node's
  /// outputs, then its inputs), from the loader's numbers (Graph::tensor_ids): no name hashed.
  /// False, with nothing kept, when the numbers do not fit the graph.
  bool number_from_loader(std::size_t references) {
    const Graph& g = *graph_;
    if (g.tensor_ids.size() != references || g.tensor_count == 0 || g.tensor_count >= none32) {
      return false;
    }
    std::vector<std::uint32_t> remap(g.tensor_count, none32);  // loader's number -> id
    const auto id_of_ref = [&](std::size_t at, const TensorRef& t) {
      const std::uint32_t number = g.tensor_ids[at];
      if (number >= g.tensor_count) return none32;
      std::uint32_t& id = remap[number];
      if (id == none32) {
        id = static_cast<std::uint32_t>(names_.size());
        names_.push_back(t.name);
        producer_.push_back(none);
      } else if (names_[id] != t.name) {
        return none32;
      }
      return id;
    };
    std::size_t at = 0;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      first_ref_.push_back(ref_ids_.size());
      ref_ids_.resize(ref_ids_.size() + n.inputs.size());
      for (const auto& o : n.outputs) {
        const std::uint32_t id = id_of_ref(at + n.inputs.size() + (&o - n.outputs.data()), o);
        if (id == none32) return restart();
        if (producer_[id] == none) producer_[id] = i;  // the first, as Graph::producer
        ref_ids_.push_back(id);
      }
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        const std::uint32_t id = id_of_ref(at + k, n.inputs[k]);
        if (id == none32) return restart();
        ref_ids_[first_ref_[i] + k] = id;
      }
      at += n.inputs.size() + n.outputs.size();
    }
    first_ref_.push_back(ref_ids_.size());
    return true;
  }

  bool restart() {
    names_.clear();
    producer_.clear();
    ref_ids_.clear();
    first_ref_.clear();
    return false;
  }

  /// The same numbering, each name looked up in a hash table (a graph without the loader's
  /// numbers); the table is then the one name lookups use.
  void number_by_name(std::size_t references) {
    const Graph& g = *graph_;
    auto& table = lazy_->ids;
    table.reserve(references / 2 + 1);  // most tensors are referenced at least twice
    producer_.reserve(references / 2 + 1);
    const auto id_of_ref = [&](const TensorRef& t) {
      const auto [id, added] = table.insert(t.name);
      if (added) {
        names_.push_back(t.name);
        producer_.push_back(none);
      }
      return static_cast<std::uint32_t>(id);
    };
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      first_ref_.push_back(ref_ids_.size());
      ref_ids_.resize(ref_ids_.size() + n.inputs.size());
      for (const auto& o : n.outputs) {
        const std::uint32_t id = id_of_ref(o);
        if (producer_[id] == none) producer_[id] = i;  // the first, as Graph::producer
        ref_ids_.push_back(id);
      }
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        ref_ids_[first_ref_[i] + k] = id_of_ref(n.inputs[k]);
      }
    }
    first_ref_.push_back(ref_ids_.size());
    std::call_once(lazy_->once, [] {});  // the table is complete
  }

  const Graph* graph_;
  std::unique_ptr<Lazy> lazy_;           ///< tensor name -> tensor id, made when first asked
  std::vector<std::string_view> names_;  ///< by tensor id: its first reference's name
  std::vector<std::size_t> producer_;    ///< by tensor id; `none`: an input
  std::vector<std::uint32_t> ref_ids_;   ///< by reference: node by node, inputs then outputs
  std::vector<std::size_t> first_ref_;   ///< by node: its first reference in ref_ids_
  std::vector<std::size_t> first_;       ///< by tensor id: its consumers in consumers_[first_..]
  std::vector<std::size_t> consumers_;   ///< node indices, grouped by tensor id
};

}  // namespace aoe

#endif  // AOE_GRAPH_GRAPH_INDEX_HPP
