// Private: operators that exporters write out in pieces, put back together on the imported
// graph, as the graph engine does before tuning:
//   Gelu       x * 0.5 * (1 + Erf(x / sqrt(2)))  (any order of the two Muls; x * (1/sqrt 2))
//   LayerNorm  (x - ReduceMean(x)) / Sqrt(ReduceMean((x - mean)^2) + eps) [* gamma] [+ beta]
// A pattern is replaced only when its inner tensors are read by nothing outside it.
#ifndef AOE_GRAPH_ONNX_DETAIL_PATTERNS_HPP
#define AOE_GRAPH_ONNX_DETAIL_PATTERNS_HPP

#include "aoe/graph/graph.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace aoe::onnx_import::detail {

class PatternMatcher {
 public:
  PatternMatcher(const Graph& g, const std::set<std::string>& constants)
      : g_(g), constants_(constants) {
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& o : g.nodes[i].outputs) producer_[o.name] = i;
      for (const auto& in : g.nodes[i].inputs) consumers_[in.name].push_back(i);
    }
  }

  /// The node producing `tensor`, when it is of type `type`.
  [[nodiscard]] std::optional<std::size_t> produced_by(const std::string& tensor,
                                                       const std::string& type) const {
    const auto it = producer_.find(tensor);
    if (it == producer_.end() || g_.nodes[it->second].type != type) return std::nullopt;
    return it->second;
  }
  /// The single consumer of node `i`'s single output, when it is of type `type`.
  [[nodiscard]] std::optional<std::size_t> sole_consumer(std::size_t i,
                                                         const std::string& type) const {
    if (g_.nodes[i].outputs.size() != 1) return std::nullopt;
    const auto it = consumers_.find(g_.nodes[i].outputs[0].name);
    if (it == consumers_.end() || it->second.size() != 1) return std::nullopt;
    if (g_.nodes[it->second[0]].type != type) return std::nullopt;
    return it->second[0];
  }
  [[nodiscard]] std::size_t consumer_count(const std::string& tensor) const {
    return consumers(tensor).size();
  }
  [[nodiscard]] const std::vector<std::size_t>& consumers(const std::string& tensor) const {
    static const std::vector<std::size_t> none;
    const auto it = consumers_.find(tensor);
    return it == consumers_.end() ? none : it->second;
  }
  [[nodiscard]] bool is_constant(const std::string& tensor) const {
    return constants_.contains(tensor);
  }
  /// For a binary node: the input that is not `known` (nullopt if neither or both are it).
  [[nodiscard]] std::optional<std::string> other_input(std::size_t i,
                                                       const std::string& known) const {
    const auto& in = g_.nodes[i].inputs;
    if (in.size() != 2) return std::nullopt;
    if (in[0].name == known && in[1].name != known) return in[1].name;
    if (in[1].name == known && in[0].name != known) return in[0].name;
    return std::nullopt;
  }
  /// For a binary node with one constant operand: the other operand.
  [[nodiscard]] std::optional<std::string> variable_input(std::size_t i) const {
    const auto& in = g_.nodes[i].inputs;
    if (in.size() != 2) return std::nullopt;
    if (is_constant(in[1].name) && !is_constant(in[0].name)) return in[0].name;
    if (is_constant(in[0].name) && !is_constant(in[1].name)) return in[1].name;
    return std::nullopt;
  }

 private:
  const Graph& g_;
  const std::set<std::string>& constants_;
  std::map<std::string, std::size_t> producer_;
  std::map<std::string, std::vector<std::size_t>> consumers_;
};

/// A recognised pattern: the nodes it replaces and the node replacing them.
struct Replacement {
  std::vector<std::size_t> nodes;
  Node node;
};

[[nodiscard]] inline std::optional<Replacement> match_gelu(const Graph& g, const PatternMatcher& pm,
                                                           std::size_t erf) {
  const Node& e = g.nodes[erf];
  if (e.inputs.size() != 1) return std::nullopt;
  auto scale = pm.produced_by(e.inputs[0].name, "RealDiv");
  if (!scale) scale = pm.produced_by(e.inputs[0].name, "Mul");
  if (!scale || pm.consumer_count(e.inputs[0].name) != 1) return std::nullopt;
  const auto x = pm.variable_input(*scale);
  if (!x) return std::nullopt;
  const auto add = pm.sole_consumer(erf, "Add");
  if (!add || !pm.variable_input(*add)) return std::nullopt;
  const auto mul = pm.sole_consumer(*add, "Mul");
  if (!mul) return std::nullopt;
  std::vector<std::size_t> nodes{*scale, erf, *add, *mul};
  const auto other = pm.other_input(*mul, g.nodes[*add].outputs[0].name);
  if (!other) return std::nullopt;
  if (*other != *x) {
    // x * 0.5 computed first: Mul(x, 0.5) feeds the last Mul.
    const auto half = pm.produced_by(*other, "Mul");
    if (!half || pm.variable_input(*half) != *x || pm.consumer_count(*other) != 1) {
      return std::nullopt;
    }
    nodes.insert(nodes.begin(), *half);
  } else if (const auto last = pm.sole_consumer(*mul, "Mul"); last && pm.variable_input(*last)) {
    nodes.push_back(*last);  // (x * (1 + erf)) * 0.5
  }
  Replacement r;
  r.nodes = nodes;
  r.node.name = e.name;
  r.node.type = "Gelu";
  for (const auto& in : g.nodes[*scale].inputs) {
    if (in.name == *x) r.node.inputs = {in};
  }
  r.node.outputs = g.nodes[nodes.back()].outputs;
  return r;
}

[[nodiscard]] inline std::optional<Replacement> match_layer_norm(const Graph& g,
                                                                 const PatternMatcher& pm,
                                                                 std::size_t sub) {
  // d = Sub(x, ReduceMean(x))
  const Node& s = g.nodes[sub];
  if (s.inputs.size() != 2) return std::nullopt;
  const auto mean = pm.produced_by(s.inputs[1].name, "ReduceMean");
  if (!mean || g.nodes[*mean].inputs.empty() || g.nodes[*mean].inputs[0].name != s.inputs[0].name ||
      pm.consumer_count(s.inputs[1].name) != 1) {
    return std::nullopt;
  }
  const std::string d = s.outputs[0].name;
  if (pm.consumer_count(d) != 2) return std::nullopt;
  // var = ReduceMean(Pow(d, 2)) or ReduceMean(Mul(d, d)); den = Sqrt(var + eps); y = d / den
  std::optional<std::size_t> sq, div;
  for (const auto i : pm.consumers(d)) {
    if (g.nodes[i].type == "Pow" || g.nodes[i].type == "Mul") sq = i;
    if (g.nodes[i].type == "RealDiv") div = i;
  }
  if (!sq || !div) return std::nullopt;
  const auto var = pm.sole_consumer(*sq, "ReduceMean");
  if (!var) return std::nullopt;
  const auto eps = pm.sole_consumer(*var, "Add");
  if (!eps || !pm.variable_input(*eps)) return std::nullopt;
  const auto root = pm.sole_consumer(*eps, "Sqrt");
  if (!root || pm.sole_consumer(*root, "RealDiv") != div) return std::nullopt;
  if (g.nodes[*div].inputs[0].name != d) return std::nullopt;
  std::vector<std::size_t> nodes{*mean, sub, *sq, *var, *eps, *root, *div};
  Replacement r;
  r.node.inputs = {g.nodes[*mean].inputs[0]};
  std::size_t last = *div;
  if (const auto gamma = pm.sole_consumer(last, "Mul"); gamma && pm.variable_input(*gamma)) {
    for (const auto& in : g.nodes[*gamma].inputs) {
      if (pm.is_constant(in.name)) r.node.inputs.push_back(in);
    }
    nodes.push_back(last = *gamma);
    if (const auto beta = pm.sole_consumer(last, "Add"); beta && pm.variable_input(*beta)) {
      for (const auto& in : g.nodes[*beta].inputs) {
        if (pm.is_constant(in.name)) r.node.inputs.push_back(in);
      }
      nodes.push_back(last = *beta);
    }
  }
  r.nodes = nodes;
  r.node.name = g.nodes[*mean].name;
  r.node.type = "LayerNorm";
  std::int64_t begin = -1;
  if (const auto it = g.nodes[*mean].attributes.find("axes");
      it != g.nodes[*mean].attributes.end()) {
    if (const auto* axes = std::get_if<std::vector<std::int64_t>>(&it->second);
        axes != nullptr && !axes->empty()) {
      begin = *std::min_element(axes->begin(), axes->end());
    }
  }
  r.node.attributes["begin_norm_axis"] = begin;
  r.node.outputs = g.nodes[last].outputs;
  return r;
}

/// Replaces every recognised pattern in `g` (in place), each by one node at the position of its
/// last member. `constants` are the model's constant tensors.
inline void fuse_patterns(Graph& g, const std::set<std::string>& constants) {
  std::vector<Replacement> found;
  {
    const PatternMatcher pm(g, constants);
    std::set<std::size_t> used;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      std::optional<Replacement> r;
      if (g.nodes[i].type == "Erf") r = match_gelu(g, pm, i);
      if (g.nodes[i].type == "Sub") r = match_layer_norm(g, pm, i);
      if (!r) continue;
      bool clash = false;
      for (const auto k : r->nodes) clash = clash || used.contains(k);
      if (clash) continue;
      used.insert(r->nodes.begin(), r->nodes.end());
      found.push_back(std::move(*r));
    }
  }
  if (found.empty()) return;
  std::map<std::size_t, const Node*> at;  // last member -> replacement
  std::set<std::size_t> removed;
  for (const auto& r : found) {
    removed.insert(r.nodes.begin(), r.nodes.end());
    at[*std::max_element(r.nodes.begin(), r.nodes.end())] = &r.node;
  }
  std::vector<Node> nodes;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (const auto it = at.find(i); it != at.end()) {
      nodes.push_back(*it->second);
    } else if (!removed.contains(i)) {
      nodes.push_back(std::move(g.nodes[i]));
    }
  }
  g.nodes = std::move(nodes);
}

}  // namespace aoe::onnx_import::detail

#endif  // AOE_GRAPH_ONNX_DETAIL_PATTERNS_HPP
