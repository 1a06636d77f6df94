// Derives a training model's gradient profile from a bundled (forward) model graph and the
// simulator: which tensors are trainable, the backward operators each forward operator implies,
// and their simulated times (docs/gdat.md#backward-pass).
//
// Rules:
// - Trainable parameters are graph inputs (tensors no node produces) in a weight position:
//   Conv2D, DepthwiseConv2D, MatMul, MatMulV2, FullyConnection, BatchMatMul(V2): input 1 (and a
//   bias, input 2); BiasAdd: input 1; BatchNorm, BNInfer, LayerNorm: inputs 1 and 2 (scale and
//   offset). Other graph inputs (the data, masks, constants) have no gradient. The gradient has
//   the parameter's shape and data type (its size is what the all-reduce carries).
// - Backward visits the nodes in reverse order, one at a time (one compute stream). A parameter
//   read by several nodes is complete after the last of them in backward order, the first in
//   forward order. A node's gradients are ready when its backward is done.
// - Backward of a cube operator (Conv2D, MatMul, MatMulV2, FullyConnection, BatchMatMul(V2)) =
//   one forward time per gradient product it needs: the input gradient (dX = dY·Wᵀ, for a
//   convolution the transposed convolution) and the weight gradient (dW = Xᵀ·dY, the filter
//   correlation) each have the FLOPs and operand sizes of the forward product, so each is timed
//   as the forward operator on the simulator (default tiling, unfused). The input gradient is
//   skipped when the input is a graph input (nothing below needs it). So a cube layer's backward
//   is twice its forward, the usual rule, at the simulator's efficiency for its shapes.
// - Backward of any other operator (normalisation, activation, pooling, elementwise, softmax,
//   depthwise convolution) = `other_backward_factor` (2) × its simulated forward time: these are
//   memory-bound and their backward reads about twice the data (the saved input and the
//   incoming gradient). Layout-only nodes (Reshape ...) cost nothing.
// - The forward pass = the simulated default times of the fused operators (aoe::fuse), as OPAT
//   reports the model's baseline.
// An operator the simulator has no model for is an error naming it (give a gradient profile
// instead).
#ifndef AOE_JOBS_GDAT_BACKWARD_DERIVATION_HPP
#define AOE_JOBS_GDAT_BACKWARD_DERIVATION_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/op/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace aoe::gdat {

/// Options of the derivation.
struct BackwardOptions {
  /// Backward time of a non-cube operator, relative to its forward time.
  double other_backward_factor = 2.0;
};

namespace detail {

inline bool one_of(std::string_view t, std::initializer_list<std::string_view> set) {
  for (const auto s : set) {
    if (s == t) return true;
  }
  return false;
}

/// Input positions of a node type that hold trainable parameters.
inline std::vector<std::size_t> weight_positions(std::string_view type) {
  if (one_of(type, {"Conv2D", "DepthwiseConv2D", "MatMul", "MatMulV2", "FullyConnection",
                    "BatchMatMul", "BatchMatMulV2"})) {
    return {1, 2};
  }
  if (type == "BiasAdd") return {1};
  if (one_of(type, {"BatchNorm", "BNInfer", "LayerNorm"})) return {1, 2};
  return {};
}

/// A text identifying an operator's computation, to time each distinct one once.
inline std::string op_signature(const OperatorDesc& op) {
  std::string s = op.type;
  const auto tensor = [&s](const TensorDesc& t) {
    s += '|';
    for (const auto d : t.shape) s += std::to_string(d) + ',';
    s += std::string(to_string(t.dtype)) + ',' + std::string(to_string(t.format));
  };
  for (const auto& t : op.inputs) tensor(t);
  s += "->";
  for (const auto& t : op.outputs) tensor(t);
  for (const auto& [k, v] : op.attributes) {
    s += ';' + k + '=';
    std::visit(
        [&s](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::string>) {
            s += x;
          } else if constexpr (std::is_same_v<X, std::vector<std::int64_t>>) {
            for (const auto e : x) s += std::to_string(e) + ',';
          } else {
            s += std::to_string(x);
          }
        },
        v);
  }
  for (const auto& m : op.members) s += '+' + m;
  return s;
}

/// Times operators on the simulator (default tiling), each distinct computation once.
class OperatorTimer {
 public:
  explicit OperatorTimer(const sim::Soc& soc) : soc_(soc) {}

  Result<double> seconds(const OperatorDesc& op, const std::string& model) {
    const std::string key = op_signature(op);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    auto runner = Runner<device::Simulator>::create(soc_, op);
    if (!runner) {
      return make_error(Errc::unsupported,
                        model + ": " + runner.error().message +
                            "; GDAT times the backward pass on the simulator: give a gradient "
                            "profile instead (docs/gdat.md#gradient-profile)");
    }
    const Measurement m = runner->evaluate(runner->default_configuration());
    if (!m.ok()) {
      return make_error(Errc::unsupported, model + ": operator '" + op.name + "' (" + op.type +
                                               "): the simulator cannot time it: " + m.message);
    }
    cache_.emplace(key, m.value);
    return m.value;
  }

 private:
  sim::Soc soc_;
  std::map<std::string, double> cache_;
};

}  // namespace detail

/// The gradient profile of `graph` trained on `soc` (rules in the file comment). Errors: an
/// operator the simulator cannot time, a graph without trainable parameters.
[[nodiscard]] inline Result<GradientProfile> derive_gradient_profile(const Graph& graph,
                                                                     const sim::Soc& soc,
                                                                     BackwardOptions options = {}) {
  detail::OperatorTimer timer(soc);
  const std::string& model = graph.name;
  GradientProfile profile;
  profile.name = graph.name;

  for (const auto& f : fuse(graph)) {
    auto t = timer.seconds(f.op, model);
    if (!t) return t.error();
    profile.forward_seconds += *t;
  }

  std::set<std::string> produced;
  for (const auto& n : graph.nodes) {
    for (const auto& o : n.outputs) produced.insert(o.name);
  }
  // Each parameter belongs to its first reader in forward order (its last in backward).
  std::map<std::string, std::size_t> owner;
  std::vector<std::vector<const TensorRef*>> params(graph.nodes.size());
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    for (const auto pos : detail::weight_positions(n.type)) {
      if (pos >= n.inputs.size()) continue;
      const TensorRef& t = n.inputs[pos];
      if (produced.contains(t.name) || owner.contains(t.name)) continue;
      owner.emplace(t.name, i);
      params[i].push_back(&t);
    }
  }
  if (owner.empty()) {
    return make_error(Errc::invalid_argument,
                      model +
                          ": no trainable parameters (expected weights of Conv2D, MatMul, "
                          "BiasAdd, BatchNorm or LayerNorm nodes that no node produces)");
  }

  const auto backward_of = [&](const Node& n) -> Result<double> {
    if (is_layout_only(n.type)) return 0.0;
    const auto needs_input_grad = [&](std::size_t pos) {
      return pos < n.inputs.size() && produced.contains(n.inputs[pos].name);
    };
    if (detail::one_of(n.type, {"Conv2D", "MatMul", "MatMulV2", "FullyConnection", "BatchMatMul",
                                "BatchMatMulV2"})) {
      auto t = timer.seconds(n.to_operator(), model);
      if (!t) return t.error();
      // The weight gradient (or, for a BatchMatMul of two activations, the second operand's)
      // always; the first input's when a node below produced it.
      return *t * (needs_input_grad(0) ? 2.0 : 1.0);
    }
    auto t = timer.seconds(n.to_operator(), model);
    if (!t) return t.error();
    return *t * options.other_backward_factor;
  };

  double t = 0;
  double last_ready = 0;
  for (std::size_t i = graph.nodes.size(); i-- > 0;) {
    auto b = backward_of(graph.nodes[i]);
    if (!b) return b.error();
    t += *b;
    for (const TensorRef* p : params[i]) {
      profile.gradients.push_back(
          Gradient{.name = p->name, .backward_seconds = t - last_ready, .bytes = p->desc.bytes()});
      last_ready = t;
    }
  }
  profile.backward_tail_seconds = t - last_ready;
  return profile;
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_BACKWARD_DERIVATION_HPP
