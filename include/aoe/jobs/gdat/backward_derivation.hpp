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
#include "aoe/graph/graph_index.hpp"
#include "aoe/graph/name_table.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/measure/simulator/runner_memo.hpp"
#include "aoe/measure/simulator/simulator_options.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/op/tensor.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
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

/// Input positions of a node type that hold trainable parameters (a view of a constant: no
/// allocation per node).
inline std::span<const std::size_t> weight_positions(std::string_view type) {
  static constexpr std::array<std::size_t, 2> one_two{1, 2};
  if (one_of(type, {"Conv2D", "DepthwiseConv2D", "MatMul", "MatMulV2", "FullyConnection",
                    "BatchMatMul", "BatchMatMulV2"})) {
    return one_two;
  }
  if (type == "BiasAdd") return std::span<const std::size_t>(one_two).first(1);
  if (one_of(type, {"BatchNorm", "BNInfer", "LayerNorm"})) return one_two;
  return {};
}

/// A trainable parameter and the node it belongs to (its first reader in forward order).
struct OwnedParameter {
  std::size_t node = 0;
  const TensorRef* tensor = nullptr;
};

/// Times operators on the simulator (default tiling), each distinct computation (the operator
/// but its name: sim::append_runner_key) once. A graph node is timed through a scratch
/// OperatorDesc whose buffers are reused, so timing the nodes of a model allocates per distinct
/// operator, not per node (docs/reliability.md#model-size).
class OperatorTimer {
 public:
  explicit OperatorTimer(const sim::Soc& soc) : soc_(soc) {}

  Result<double> seconds(const OperatorDesc& op, const std::string& model) {
    key_.clear();
    sim::append_runner_key(key_, op, knowledge_);
    if (const auto it = cache_.find(std::string_view(key_)); it != cache_.end()) {
      return it->second;
    }
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
    cache_.emplace(key_, m.value);
    return m.value;
  }

  /// seconds(n.to_operator(), model).
  Result<double> seconds(const Node& n, const std::string& model) {
    scratch_.type.assign(n.type);
    scratch_.name.assign(n.name);
    const auto descs = [](std::vector<TensorDesc>& to, const std::vector<TensorRef>& from) {
      to.resize(from.size());
      for (std::size_t k = 0; k < from.size(); ++k) {
        to[k].shape.assign(from[k].desc.shape.begin(), from[k].desc.shape.end());
        to[k].dtype = from[k].desc.dtype;
        to[k].format = from[k].desc.format;
      }
    };
    descs(scratch_.inputs, n.inputs);
    descs(scratch_.outputs, n.outputs);
    if (!(scratch_.attributes.empty() && n.attributes.empty())) scratch_.attributes = n.attributes;
    return seconds(scratch_, model);
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept {
      return std::hash<std::string_view>{}(s);
    }
  };

  sim::Soc soc_;
  const std::vector<sim::Knowledge> knowledge_ = SimulatorOptions{}.knowledge;
  std::string key_;
  OperatorDesc scratch_;
  std::unordered_map<std::string, double, Hash, std::equal_to<>> cache_;
};

/// The forward pass's time: one fused operator at a time (made, timed, dropped), not the whole
/// fused model at once.
[[nodiscard]] inline Result<double> forward_seconds(const GraphIndex& index, OperatorTimer& timer,
                                                    const std::string& model) {
  double seconds = 0;
  std::optional<ErrorInfo> failed;
  for_each_fusion_group(index, {}, [&](const std::vector<std::size_t>& members) {
    if (failed) return;
    const FusedOperator f = make_fused(index.graph(), members);
    auto t = timer.seconds(f.op, model);
    if (!t) {
      failed = t.error();
      return;
    }
    seconds += *t;
  });
  if (failed) return *failed;
  return seconds;
}

/// The trainable parameters: each belongs to its first reader in forward order (its last in
/// backward); one flat list in forward order (node, then input position), not a vector per
/// node.
[[nodiscard]] inline std::vector<OwnedParameter> owned_parameters(const GraphIndex& index) {
  const Graph& graph = index.graph();
  ::aoe::detail::NameTable owned;
  std::vector<OwnedParameter> params;
  std::size_t weight_inputs = 0;
  for (const Node& n : graph.nodes) weight_inputs += weight_positions(n.type).size();
  owned.reserve(weight_inputs);
  params.reserve(weight_inputs);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    for (const auto pos : weight_positions(n.type)) {
      if (pos >= n.inputs.size()) continue;
      const TensorRef& t = n.inputs[pos];
      if (index.producer(t.name).has_value() || !owned.insert(t.name).second) continue;
      params.push_back({i, &t});
    }
  }
  return params;
}

/// Node `n`'s backward time.
[[nodiscard]] inline Result<double> backward_seconds(const Node& n, const GraphIndex& index,
                                                     OperatorTimer& timer, const std::string& model,
                                                     const BackwardOptions& options) {
  if (is_layout_only(n.type)) return 0.0;
  const auto needs_input_grad = [&](std::size_t pos) {
    return pos < n.inputs.size() && index.producer(n.inputs[pos].name).has_value();
  };
  if (one_of(n.type,
             {"Conv2D", "MatMul", "MatMulV2", "FullyConnection", "BatchMatMul", "BatchMatMulV2"})) {
    auto t = timer.seconds(n, model);
    if (!t) return t.error();
    // The weight gradient (or, for a BatchMatMul of two activations, the second operand's)
    // always; the first input's when a node below produced it.
    return *t * (needs_input_grad(0) ? 2.0 : 1.0);
  }
  auto t = timer.seconds(n, model);
  if (!t) return t.error();
  return *t * options.other_backward_factor;
}

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
  const GraphIndex index(graph);  // one pass: who produces each tensor
  auto forward = detail::forward_seconds(index, timer, model);
  if (!forward) return forward.error();
  profile.forward_seconds = *forward;
  const std::vector<detail::OwnedParameter> params = detail::owned_parameters(index);
  if (params.empty()) {
    return make_error(Errc::invalid_argument,
                      model +
                          ": no trainable parameters (expected weights of Conv2D, MatMul, "
                          "BiasAdd, BatchNorm or LayerNorm nodes that no node produces)");
  }
  double t = 0;
  double last_ready = 0;
  profile.gradients.reserve(params.size());
  std::size_t end = params.size();  // params[..end) belong to nodes 0..i
  for (std::size_t i = graph.nodes.size(); i-- > 0;) {
    auto b = detail::backward_seconds(graph.nodes[i], index, timer, model, options);
    if (!b) return b.error();
    t += *b;
    std::size_t begin = end;
    while (begin > 0 && params[begin - 1].node == i) --begin;
    for (std::size_t k = begin; k < end; ++k) {
      const TensorRef* p = params[k].tensor;
      profile.gradients.push_back(
          Gradient{.name = p->name, .backward_seconds = t - last_ready, .bytes = p->desc.bytes()});
      last_ready = t;
    }
    end = begin;
  }
  profile.backward_tail_seconds = t - last_ready;
  return profile;
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_BACKWARD_DERIVATION_HPP
