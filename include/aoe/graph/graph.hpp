// A model graph as OPAT sees it: static-shape operators connected by named tensors
// (docs/model_format.md).
#ifndef AOE_GRAPH_GRAPH_HPP
#define AOE_GRAPH_GRAPH_HPP

#include "aoe/op/operator_desc.hpp"
#include "aoe/op/tensor.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aoe {

namespace detail {

/// Full passes over a graph's nodes made by Graph::producer, Graph::consumers and GraphIndex's
/// construction, in this process. Tests read it to check that the jobs make a bounded number of
/// passes whatever the graph's size (tests/graph/scale_test.cpp): a pass per node would make
/// them quadratic. One relaxed increment per pass, not per node.
inline std::atomic<std::uint64_t> graph_scans{0};
inline void count_graph_scan() noexcept { graph_scans.fetch_add(1, std::memory_order_relaxed); }

}  // namespace detail

/// A tensor edge: its name (the link between producer and consumers) and description.
struct TensorRef {
  std::string name;
  TensorDesc desc;
};

/// One operator of a model.
struct Node {
  std::string name;
  std::string type;
  std::vector<TensorRef> inputs;
  std::vector<TensorRef> outputs;
  std::map<std::string, Attribute> attributes;

  /// The node as a single (unfused) operator.
  [[nodiscard]] OperatorDesc to_operator() const {
    OperatorDesc op;
    op.type = type;
    op.name = name;
    for (const auto& t : inputs) op.inputs.push_back(t.desc);
    for (const auto& t : outputs) op.outputs.push_back(t.desc);
    op.attributes = attributes;
    return op;
  }
};

/// A model: nodes in topological order (every input is a graph input or produced by an earlier
/// node; the loader checks it).
struct Graph {
  std::string name;
  std::vector<Node> nodes;
  /// The loader's number of each tensor reference, node by node (its inputs, then its
  /// outputs), each below `tensor_count`: one number per distinct name. A hint that lets
  /// GraphIndex index the graph without hashing a name per reference; it checks each reference's
  /// name against the first one of its number and hashes the names instead when they differ or
  /// the counts do not match (a graph built or edited in code may leave both empty). Code that
  /// renames a loaded graph's tensors clears it.
  std::vector<std::uint32_t> tensor_ids{};
  std::size_t tensor_count = 0;

  /// Index of the node producing tensor `tensor`, or nullopt for a graph input (data, weight).
  /// A scan of every node: for more than a few lookups build a GraphIndex (graph_index.hpp).
  [[nodiscard]] std::optional<std::size_t> producer(const std::string& tensor) const {
    detail::count_graph_scan();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (const auto& o : nodes[i].outputs) {
        if (o.name == tensor) return i;
      }
    }
    return std::nullopt;
  }

  /// Indices of the nodes reading tensor `tensor`, in order. A scan of every node: for more
  /// than a few lookups build a GraphIndex (graph_index.hpp).
  [[nodiscard]] std::vector<std::size_t> consumers(const std::string& tensor) const {
    detail::count_graph_scan();
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      for (const auto& in : nodes[i].inputs) {
        if (in.name == tensor) {
          out.push_back(i);
          break;
        }
      }
    }
    return out;
  }
};

}  // namespace aoe

#endif  // AOE_GRAPH_GRAPH_HPP
