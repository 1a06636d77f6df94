// Fusion as OPAT does it before tuning (UB fusion of the graph engine): a cube operator with the
// batch norm and activation that follow it, a matrix product with its bias and activation, and
// chains of elementwise operators become one fused operator each, tuned as one.
#ifndef AOE_GRAPH_FUSION_HPP
#define AOE_GRAPH_FUSION_HPP

#include "aoe/graph/graph.hpp"
#include "aoe/graph/graph_index.hpp"
#include "aoe/op/operator_desc.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// One operator as OPAT tunes it: the fused description and the graph nodes it covers.
struct FusedOperator {
  OperatorDesc op;                 ///< type "A+B+C", name the members' names joined
  std::vector<std::size_t> nodes;  ///< indices into Graph::nodes, in data-flow order
};

/// Which fusions to apply (all on by default, as the graph engine does before OPAT).
struct FusionOptions {
  bool conv_bn_act = true;      ///< Conv2D/DepthwiseConv2D [+BatchNorm] [+Relu|Relu6]
  bool matmul_bias_act = true;  ///< MatMul/BatchMatMul [+BiasAdd|Add(bias)] [+Gelu|Relu|Tanh]
  bool elementwise = true;      ///< chains of elementwise operators of one output shape
  /// The most operators in one elementwise chain; a longer chain is cut into fused operators of
  /// this many (the last shorter). The graph engine bounds every UB-fusion pattern's operator
  /// count too (its BufferFusionPattern's op_max_count); an unbounded chain would make a model
  /// of n elementwise operators one operator whose name, and the tuned model that repeats it on
  /// each of its n nodes, grow with n (docs/reliability.md#model-size).
  std::size_t max_elementwise_chain = 16;
};

namespace detail {

inline constexpr std::array<std::string_view, 4> conv_types{"Conv2D", "DepthwiseConv2D",
                                                            "Conv2DCompress", "Conv2DTranspose"};
inline constexpr std::array<std::string_view, 4> matmul_types{"MatMul", "MatMulV2", "BatchMatMul",
                                                              "BatchMatMulV2"};
inline constexpr std::array<std::string_view, 4> conv_activations{"Relu", "Relu6", "LeakyRelu",
                                                                  "Sigmoid"};
inline constexpr std::array<std::string_view, 4> matmul_activations{"Gelu", "Relu", "Tanh",
                                                                    "FastGelu"};
inline constexpr std::array<std::string_view, 22> elementwise_types{
    "Add",       "Sub",  "Mul",         "RealDiv",   "Relu",        "Relu6",   "Gelu", "Sigmoid",
    "Tanh",      "Cast", "Muls",        "Adds",      "Maximum",     "Minimum", "Exp",  "Neg",
    "LeakyRelu", "Erf",  "HardSigmoid", "HardSwish", "ClipByValue", "PRelu"};
/// Layout-only operators: no AI Core kernel, nothing for OPAT to tune.
inline constexpr std::array<std::string_view, 7> layout_types{
    "Reshape", "Flatten", "Squeeze", "Unsqueeze", "ExpandDims", "Identity", "Data"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& set, std::string_view t) {
  return std::find(set.begin(), set.end(), t) != set.end();
}

}  // namespace detail

/// Whether OPAT leaves this operator type alone (layout-only operators such as Reshape).
[[nodiscard]] inline bool is_layout_only(std::string_view type) {
  return detail::one_of(detail::layout_types, type);
}

/// Builds the fused operator of `members` (graph node indices in data-flow order): inputs are
/// the members' inputs not produced inside the group, outputs the last member's; attributes of
/// the first member keep their names, the others are prefixed "<Type>." ; the name is the
/// members' names joined with nothing between them, as AOE joins them in its result files
/// (e.g. ".../dense/MatMul.../output/add").
[[nodiscard]] inline FusedOperator make_fused(const Graph& g, std::vector<std::size_t> members) {
  FusedOperator f;
  f.nodes = std::move(members);
  // The tensors produced inside the group: a handful (fuse's groups have at most
  // FusionOptions::max_elementwise_chain members), so views in a vector, not a set of copies;
  // searched in order when short, sorted when long.
  std::vector<std::string_view> internal;
  std::size_t type_size = f.nodes.size();
  std::size_t name_size = 0;
  std::size_t inputs = 0;
  for (const auto i : f.nodes) {
    inputs += g.nodes[i].inputs.size();
    for (const auto& o : g.nodes[i].outputs) internal.push_back(o.name);
    type_size += g.nodes[i].type.size();
    name_size += g.nodes[i].name.size();
  }
  const bool sorted = internal.size() > 32;
  if (sorted) std::sort(internal.begin(), internal.end());
  const auto is_internal = [&internal, sorted](std::string_view t) {
    return sorted ? std::binary_search(internal.begin(), internal.end(), t)
                  : std::find(internal.begin(), internal.end(), t) != internal.end();
  };
  const bool fused = f.nodes.size() > 1;
  f.op.type.reserve(type_size);
  f.op.name.reserve(name_size);
  f.op.inputs.reserve(inputs);
  f.op.outputs.reserve(g.nodes[f.nodes.back()].outputs.size());
  if (fused) f.op.members.reserve(f.nodes.size());
  for (std::size_t k = 0; k < f.nodes.size(); ++k) {
    const Node& n = g.nodes[f.nodes[k]];
    if (k > 0) f.op.type += '+';
    f.op.type += n.type;
    f.op.name += n.name;
    if (fused) f.op.members.push_back(n.type);
    for (const auto& in : n.inputs) {
      if (!is_internal(in.name)) f.op.inputs.push_back(in.desc);
    }
    for (const auto& [key, value] : n.attributes) {
      f.op.attributes.emplace(k == 0 ? key : n.type + "." + key, value);
    }
  }
  for (const auto& o : g.nodes[f.nodes.back()].outputs) f.op.outputs.push_back(o.desc);
  return f;
}

/// Calls `each(const std::vector<std::size_t>& members)` for every group `fuse` makes, in graph
/// order (members: node indices in data-flow order), without making the fused operators: for
/// callers that need only which nodes go together (SGAT's split). Linear in the graph's size.
template <class Each>
void for_each_fusion_group(const GraphIndex& index, const FusionOptions& options, Each&& each) {
  using detail::one_of;
  const Graph& g = index.graph();
  std::vector<bool> taken(g.nodes.size(), false);
  std::vector<std::size_t> group;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (taken[i]) continue;
    const Node& n = g.nodes[i];
    if (is_layout_only(n.type)) {
      taken[i] = true;
      continue;
    }
    group.assign(1, i);
    const auto extend = [&](auto accept) {
      const auto next = index.sole_consumer(group.back());
      if (!next || taken[*next] || !accept(g.nodes[*next])) return false;
      group.push_back(*next);
      return true;
    };
    if (options.conv_bn_act && one_of(detail::conv_types, n.type)) {
      extend([](const Node& m) { return m.type == "BatchNorm"; });
      extend([](const Node& m) { return one_of(detail::conv_activations, m.type); });
    } else if (options.matmul_bias_act && one_of(detail::matmul_types, n.type)) {
      const auto is_bias = [&index, &g](const Node& m) {
        if (m.type == "BiasAdd") return true;
        if (m.type != "Add" || m.inputs.size() != 2) return false;
        // An Add is a bias when its other operand is a weight (no producer) of lower rank.
        for (const auto& in : m.inputs) {
          if (!index.input_producer(static_cast<std::size_t>(&m - g.nodes.data()),
                                    static_cast<std::size_t>(&in - m.inputs.data())) &&
              in.desc.shape.size() < m.outputs[0].desc.shape.size()) {
            return true;
          }
        }
        return false;
      };
      extend(is_bias);
      extend([](const Node& m) { return one_of(detail::matmul_activations, m.type); });
    } else if (options.elementwise && one_of(detail::elementwise_types, n.type)) {
      while (group.size() < options.max_elementwise_chain && extend([&](const Node& m) {
               return one_of(detail::elementwise_types, m.type) && m.outputs.size() == 1 &&
                      m.outputs[0].desc.shape == n.outputs[0].desc.shape;
             })) {
      }
    }
    for (const auto k : group) taken[k] = true;
    each(std::as_const(group));
  }
}

/// Fuses the graph of `index` as OPAT does and returns one operator per fused group or single
/// node, in graph order; layout-only nodes (Reshape ...) are left out. Linear in the graph's
/// size (each node joins one group; tensors are looked up in the index).
[[nodiscard]] inline std::vector<FusedOperator> fuse(const GraphIndex& index,
                                                     FusionOptions options = {}) {
  std::vector<FusedOperator> out;
  for_each_fusion_group(index, options, [&](const std::vector<std::size_t>& group) {
    out.push_back(make_fused(index.graph(), group));
  });
  return out;
}

/// Fuses `g` (fuse above, with an index built for it).
[[nodiscard]] inline std::vector<FusedOperator> fuse(const Graph& g, FusionOptions options = {}) {
  return fuse(GraphIndex(g), options);
}

}  // namespace aoe

#endif  // AOE_GRAPH_FUSION_HPP
