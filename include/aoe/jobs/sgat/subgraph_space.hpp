// The strategy space of one subgraph (docs/sgat.md#the-strategy-space), after AOE's subgraph
// strategy (`*_l2cache.json`: cut, fusionType/scopeId, ubPass;
// docs/aoe-facts.md#subgraph-graph-bank) plus the formats of the tensors between operators:
//   cut           slices of the batch axis the subgraph runs in, so that each slice's
//                 intermediates fit in L2; must divide the batch unless --Fnonhomo_split
//   l2_optimize   keep intermediates that fit in L2 there (off: every tensor between kernels
//                 goes through HBM, which is what the graph does untuned)
//   ub.<pass>     the UB-fusion passes OPAT applies (aoe::fuse's three rules), each on or off
//   scope.<j>     one more fusion scope: the cube operator ending at local node j absorbs the
//                 elementwise operator(s) after it (a residual Add, a scale Mul ...)
//   fmt.<j>.<k>   the format output k of local node j is stored in between operators: ND (the
//                 model's) or FRACTAL_NZ; every mismatch with what an operator reads or writes
//                 costs a TransData
// Parameter names use positions inside the subgraph, never node names, so a strategy stored
// under a subgraph's key applies to every subgraph with the same structure.
#ifndef AOE_JOBS_SGAT_SUBGRAPH_SPACE_HPP
#define AOE_JOBS_SGAT_SUBGRAPH_SPACE_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/graph_index.hpp"
#include "aoe/jobs/sgat/subgraph_split.hpp"
#include "aoe/measure/simulator/costs.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// The UB-fusion passes a strategy switches: aoe::fuse's three rules (FusionOptions).
enum class SgatPass : std::uint8_t { conv_bn_act, matmul_bias_act, elementwise };

/// Their names in the bank's `ubPass` object (in the style of the graph engine's pass names).
inline constexpr std::array<std::string_view, 3> sgat_pass_names{
    "ConvBatchnormActivationFusionPass", "MatMulBiasAddActivationFusionPass",
    "ElementwiseChainFusionPass"};
/// Their parameters in the strategy space.
inline constexpr std::array<std::string_view, 3> sgat_pass_parameters{
    "ub.conv_bn_act", "ub.matmul_bias_act", "ub.elementwise"};

/// How the space is built. Aggregate: `aoe::SubgraphSpaceOptions{.nonhomo_split = true}`.
struct SubgraphSpaceOptions {
  bool nonhomo_split = false;    ///< --Fnonhomo_split: slice counts that do not divide the batch
  std::int64_t max_slices = 32;  ///< the largest slice count offered
};

/// A strategy decoded from a configuration of the space.
struct SubgraphStrategy {
  std::int64_t cut = 1;              ///< slices
  std::vector<std::int64_t> slices;  ///< batch units per slice, largest first: 7 / 2 -> {4, 3}
  bool l2_optimize = false;          ///< keep intermediates that fit in L2
  std::array<bool, 3> passes{true, true, true};  ///< by SgatPass
  std::vector<bool> merges;                      ///< per SubgraphSpace::merges()
  std::vector<bool> fractal;                     ///< per SubgraphSpace::formats(): FRACTAL_NZ
};

/// How an operator handles formats: it reads and writes the model's formats only (native),
/// FRACTAL_NZ only (fractal: MatMul on SoCs without MTE2's ND->NZ), or either, in the format its
/// output is stored in (agnostic: elementwise, SoftmaxV2, MatMul on A2).
enum class FormatBehaviour : std::uint8_t { native, fractal, agnostic };

/// What an operator of the subgraph is, for fusion and formats.
enum class SgatOpKind : std::uint8_t { layout, matmul, conv, softmax, elementwise, other };

/// One subgraph, analysed: its nodes as a graph of their own, the fused operators under every
/// set of passes, the candidate extra fusion scopes and format choices, the batch axis; and the
/// `aoe::Space` of its strategies. Immutable after `create`; shared by the scorer's threads.
class SubgraphSpace {
 public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  /// A tensor the subgraph reads or writes.
  struct TensorInfo {
    TensorDesc desc;
    std::size_t producer = npos;  ///< local node, or npos for a tensor from outside
    std::size_t output = 0;       ///< which output of the producer
    bool batched = false;         ///< carries the batch axis (sliced with the subgraph)
    bool escapes = false;         ///< produced here and read after the subgraph (or a model output)
    std::string root;             ///< the buffer it is a view of (through layout-only nodes)
    std::vector<std::size_t> readers;  ///< local nodes reading it
  };

  /// A candidate extra fusion scope: the cube scope ending at `from_last` absorbs the
  /// elementwise scope starting at `into_first` (its only reader).
  struct ScopeMerge {
    std::size_t from_last = 0;
    std::size_t into_first = 0;
    std::optional<SgatPass> needs;  ///< the pass that forms the cube scope's epilogue, if any
    std::string parameter;          ///< "scope.<from_last>"
  };

  /// A tensor between operators whose stored format the strategy chooses.
  struct FormatChoice {
    std::string tensor;
    std::size_t node = 0;  ///< local producer
    std::size_t output = 0;
    std::string parameter;  ///< "fmt.<node>.<output>"
  };

  /// Analyses subgraph `s` of `g` for `soc` (used to check that a candidate fusion scope is
  /// one the simulator can time). Errors: an empty subgraph.
  [[nodiscard]] static Result<SubgraphSpace> create(const Graph& g, const Subgraph& s,
                                                    const sim::Soc& soc,
                                                    SubgraphSpaceOptions options = {}) {
    return create(GraphIndex(g), s, soc, options);
  }

  /// The same, for a graph indexed once for all its subgraphs (`index` is the graph's index):
  /// the readers of a tensor are looked up, not scanned for.
  [[nodiscard]] static Result<SubgraphSpace> create(const GraphIndex& graph_index,
                                                    const Subgraph& s, const sim::Soc& soc,
                                                    SubgraphSpaceOptions options = {}) {
    const Graph& g = graph_index.graph();
    if (s.begin >= s.end || s.end > g.nodes.size()) {
      return make_error(Errc::invalid_argument, "subgraph " + std::to_string(s.index) +
                                                    ": expected a non-empty node "
                                                    "range inside the graph");
    }
    SubgraphSpace sp;
    sp.subgraph_ = s;
    sp.options_ = options;
    sp.analyse(graph_index);
    const GraphIndex index(sp.local_);
    for (unsigned mask = 0; mask < 8; ++mask) {
      sp.groups_[mask] = fuse(index, FusionOptions{.conv_bn_act = (mask & 1U) != 0,
                                                   .matmul_bias_act = (mask & 2U) != 0,
                                                   .elementwise = (mask & 4U) != 0});
    }
    sp.find_merges(soc, index);
    sp.find_formats();
    sp.build_space();
    return sp;
  }

  [[nodiscard]] const Space& space() const noexcept { return *space_; }
  /// The untuned strategy: one slice, no L2 planning, OPAT's fusion, the model's formats.
  [[nodiscard]] const Configuration& default_configuration() const noexcept { return default_; }
  [[nodiscard]] const Subgraph& subgraph() const noexcept { return subgraph_; }
  [[nodiscard]] const SubgraphSpaceOptions& options() const noexcept { return options_; }
  /// The subgraph's nodes as a graph; its last node is an "Identity" reading every tensor that
  /// escapes, so that fusion never swallows a tensor needed after the subgraph.
  [[nodiscard]] const Graph& graph() const noexcept { return local_; }
  [[nodiscard]] std::size_t boundary_node() const noexcept { return local_.nodes.size() - 1; }
  /// The batch axis' size: the gcd of the leading dimensions of the batched tensors (1 when
  /// the subgraph cannot be sliced).
  [[nodiscard]] std::int64_t batch() const noexcept { return batch_; }
  [[nodiscard]] const std::map<std::string, TensorInfo>& tensors() const noexcept {
    return tensors_;
  }
  [[nodiscard]] const TensorInfo& tensor(const std::string& name) const {
    return tensors_.at(name);
  }
  /// Whether input `k` of local node `node` is read one slice at a time.
  [[nodiscard]] bool input_batched(std::size_t node, std::size_t k) const {
    return input_batched_[node][k];
  }
  [[nodiscard]] SgatOpKind kind(std::size_t node) const { return kinds_[node]; }
  /// OPAT's fused operators under `passes` (by SgatPass), local node indices.
  [[nodiscard]] const std::vector<FusedOperator>& groups(const std::array<bool, 3>& passes) const {
    return groups_[(passes[0] ? 1U : 0U) | (passes[1] ? 2U : 0U) | (passes[2] ? 4U : 0U)];
  }
  [[nodiscard]] const std::vector<ScopeMerge>& merges() const noexcept { return merges_; }
  [[nodiscard]] const std::vector<FormatChoice>& formats() const noexcept { return formats_; }
  /// Which passes have something to fuse here (the others are not in the space).
  [[nodiscard]] const std::array<bool, 3>& passes_present() const noexcept { return present_; }
  /// Tensors from outside that are not sliced (weights, biases): read whole by every slice.
  [[nodiscard]] const std::vector<std::string>& weights() const noexcept { return weights_; }

  /// The strategy of a configuration (valid or not; the scorer rejects invalid ones).
  [[nodiscard]] SubgraphStrategy decode(const Configuration& c) const {
    SubgraphStrategy st;
    const Space& sp = *space_;
    st.cut = std::max<std::int64_t>(1, sp.value(c, 0).as_integer());
    st.slices = slice_sizes(batch_, st.cut);
    st.l2_optimize = sp.value(c, 1).as_integer() != 0;
    for (std::size_t p = 0; p < 3; ++p) {
      if (pass_dim_[p] != npos) st.passes[p] = sp.value(c, pass_dim_[p]).as_integer() != 0;
    }
    for (std::size_t k = 0; k < merges_.size(); ++k) {
      st.merges.push_back(sp.value(c, merge_dim_ + k).as_integer() != 0);
    }
    for (std::size_t k = 0; k < formats_.size(); ++k) {
      st.fractal.push_back(sp.value(c, format_dim_ + k).as_text() == "FRACTAL_NZ");
    }
    return st;
  }

  /// The slices of `batch` units in `cut` pieces as even as possible, largest first.
  [[nodiscard]] static std::vector<std::int64_t> slice_sizes(std::int64_t batch, std::int64_t cut) {
    cut = std::clamp<std::int64_t>(cut, 1, std::max<std::int64_t>(1, batch));
    std::vector<std::int64_t> out;
    const std::int64_t q = batch / cut;
    const std::int64_t r = batch % cut;
    for (std::int64_t i = 0; i < cut; ++i) out.push_back(q + (i < r ? 1 : 0));
    return out;
  }

 private:
  SubgraphSpace() = default;

  static SgatOpKind kind_of(std::string_view type) {
    if (is_layout_only(type)) return SgatOpKind::layout;
    if (type == "MatMul" || type == "MatMulV2" || type == "BatchMatMul" ||
        type == "BatchMatMulV2" || type == "FullyConnection") {
      return SgatOpKind::matmul;
    }
    if (type == "Conv2D") return SgatOpKind::conv;
    if (type == "SoftmaxV2" || type == "Softmax") return SgatOpKind::softmax;
    if (sim::is_elementwise(type)) return SgatOpKind::elementwise;
    return SgatOpKind::other;
  }

  static bool flag_attribute(const Node& n, std::initializer_list<const char*> names) {
    for (const char* name : names) {
      const auto it = n.attributes.find(name);
      if (it == n.attributes.end()) continue;
      if (const auto* b = std::get_if<bool>(&it->second); b != nullptr && *b) return true;
      if (const auto* i = std::get_if<std::int64_t>(&it->second); i != nullptr && *i != 0) {
        return true;
      }
    }
    return false;
  }

  /// The subgraph as a graph of its own (`local_`, closed by the boundary node), its tensors
  /// (`tensors_`), the batch axis and the weights: the analysis `create` builds on.
  void analyse(const GraphIndex& graph_index) {
    copy_nodes(graph_index.graph());
    collect_tensors();
    add_boundary(graph_index);
    find_views();
    find_batch_axis();
    find_weights();
  }

  /// The subgraph's nodes, copied, and their kinds.
  void copy_nodes(const Graph& g) {
    local_.name = g.name;
    for (std::size_t i = subgraph_.begin; i < subgraph_.end; ++i)
      local_.nodes.push_back(g.nodes[i]);
    const std::size_t n = local_.nodes.size();
    kinds_.resize(n + 1, SgatOpKind::layout);
    for (std::size_t i = 0; i < n; ++i) kinds_[i] = kind_of(local_.nodes[i].type);
  }

  /// Tensors: producers and readers inside the subgraph.
  void collect_tensors() {
    const std::size_t n = local_.nodes.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Node& node = local_.nodes[i];
      for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        TensorInfo& t = tensors_[node.outputs[k].name];
        t.desc = node.outputs[k].desc;
        t.producer = i;
        t.output = k;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (const auto& in : local_.nodes[i].inputs) {
        TensorInfo& t = tensors_[in.name];
        if (t.producer == npos) t.desc = in.desc;
        if (std::find(t.readers.begin(), t.readers.end(), i) == t.readers.end()) {
          t.readers.push_back(i);
        }
      }
    }
  }

  /// Marks the produced tensors read outside the subgraph (or by no node: a model output) as
  /// escaping and appends the boundary node, an "Identity" reading all of them.
  void add_boundary(const GraphIndex& graph_index) {
    const auto read_outside = [&](const std::string& name) {
      const auto readers = graph_index.consumers(name);  // ascending
      return !readers.empty() &&
             (readers.front() < subgraph_.begin || readers.back() >= subgraph_.end);
    };
    Node boundary;
    boundary.name = "__sgat_boundary__";
    boundary.type = "Identity";
    for (auto& [name, t] : tensors_) {
      if (t.producer == npos) continue;
      t.escapes = read_outside(name) || t.readers.empty();
      if (t.escapes) boundary.inputs.push_back({name, t.desc});
    }
    local_.nodes.push_back(std::move(boundary));
  }

  /// Views: a layout-only node's output is its input's buffer (`root`); a view that escapes
  /// makes its buffer escape.
  void find_views() {
    const std::size_t n = local_.nodes.size() - 1;  // without the boundary node
    for (std::size_t i = 0; i < n; ++i) {
      const Node& node = local_.nodes[i];
      for (const auto& o : node.outputs) {
        TensorInfo& t = tensors_[o.name];
        t.root = o.name;
        if (kinds_[i] == SgatOpKind::layout && !node.inputs.empty()) {
          t.root = tensors_[node.inputs[0].name].root.empty() ? node.inputs[0].name
                                                              : tensors_[node.inputs[0].name].root;
        }
      }
    }
    for (auto& [name, t] : tensors_) {
      if (t.root.empty()) t.root = name;
    }
    for (auto& [name, t] : tensors_) {
      if (t.escapes && t.root != name) tensors_[t.root].escapes = true;
    }
  }

  /// Whether input `k` (description `d`) of `node`, of kind `kind`, carries the batch axis;
  /// clears `sliceable` when the node's product does not have the batch as its leading axis.
  static bool input_carries_batch(const Node& node, SgatOpKind kind, std::size_t k,
                                  const TensorDesc& d, bool& sliceable) {
    const auto leading = [](const TensorDesc& t) { return t.shape.empty() ? 0 : t.shape[0]; };
    const TensorDesc* out = node.outputs.empty() ? nullptr : &node.outputs[0].desc;
    const bool same_leading =
        out != nullptr && d.shape.size() >= 2 && !out->shape.empty() && leading(d) == leading(*out);
    switch (kind) {
      case SgatOpKind::layout: return !d.shape.empty();
      case SgatOpKind::matmul: {
        const bool batched_op = node.type.starts_with("BatchMatMul");
        if (k == 0) {
          if (batched_op ? d.shape.size() < 3
                         : flag_attribute(node, {"transpose_a", "transpose_x1"})) {
            sliceable = false;  // the batch is not the leading axis of the product
          }
          return true;
        }
        if (k == 1) return batched_op && d.shape.size() >= 3 && same_leading;
        return same_leading;
      }
      case SgatOpKind::conv: return k == 0;
      default:
        return same_leading || (k == 0 && node.type == "DepthwiseConv2D") ||
               (k == 0 && (node.type.find("Pool") != std::string::npos));
    }
  }

  /// The batch axis: which reads carry it (`input_batched_`), which tensors are batched, and
  /// its size (`batch_`: the gcd of the leading dimensions, 1 when the subgraph cannot be
  /// sliced).
  void find_batch_axis() {
    const std::size_t n = local_.nodes.size() - 1;  // without the boundary node
    bool sliceable = true;
    std::int64_t gcd = 0;
    input_batched_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const Node& node = local_.nodes[i];
      input_batched_[i].assign(node.inputs.size(), false);
      for (std::size_t k = 0; k < node.inputs.size(); ++k) {
        const TensorDesc& d = node.inputs[k].desc;
        const bool b = input_carries_batch(node, kinds_[i], k, d, sliceable);
        input_batched_[i][k] = b;
        const TensorInfo& t = tensors_[node.inputs[k].name];
        if (!b && t.producer != npos) sliceable = false;  // a slice needs all of it
        if (b) {
          if (t.producer == npos) tensors_[node.inputs[k].name].batched = true;
          gcd = std::gcd(gcd, d.shape.empty() ? 0 : d.shape[0]);
        }
      }
      for (const auto& o : node.outputs) {
        if (o.desc.shape.empty()) {
          sliceable = false;
          continue;
        }
        tensors_[o.name].batched = true;
        gcd = std::gcd(gcd, o.desc.shape[0]);
      }
    }
    batch_ = sliceable && gcd > 0 ? gcd : 1;
  }

  /// Tensors from outside read whole (not one slice at a time) by some node: the weights.
  void find_weights() {
    for (const auto& [name, t] : tensors_) {
      if (t.producer != npos) continue;
      bool whole = false;
      for (const auto r : t.readers) {
        for (std::size_t k = 0; k < local_.nodes[r].inputs.size(); ++k) {
          if (local_.nodes[r].inputs[k].name == name && !input_batched_[r][k]) whole = true;
        }
      }
      if (whole) weights_.push_back(name);
    }
  }

  [[nodiscard]] static std::vector<std::size_t> group_index(const std::vector<FusedOperator>& gs,
                                                            std::size_t nodes) {
    std::vector<std::size_t> of(nodes, npos);
    for (std::size_t gi = 0; gi < gs.size(); ++gi) {
      for (const auto m : gs[gi].nodes) of[m] = gi;
    }
    return of;
  }

  void find_merges(const sim::Soc& soc, const GraphIndex& index) {
    const auto& gs = groups_[7];
    const auto of = group_index(gs, local_.nodes.size());
    for (const auto& gr : gs) {
      const std::size_t head = gr.nodes.front();
      const std::size_t last = gr.nodes.back();
      if (kinds_[head] != SgatOpKind::matmul && kinds_[head] != SgatOpKind::conv) continue;
      const auto next = index.sole_consumer(last);
      if (!next || of[*next] == npos) continue;
      const FusedOperator& h = gs[of[*next]];
      if (h.nodes.front() != *next) continue;
      const bool all_elementwise = std::all_of(h.nodes.begin(), h.nodes.end(), [&](std::size_t m) {
        return kinds_[m] == SgatOpKind::elementwise;
      });
      if (!all_elementwise) continue;
      if (local_.nodes[h.nodes.back()].outputs[0].desc.shape !=
          local_.nodes[last].outputs[0].desc.shape) {
        continue;  // an epilogue keeps the cube operator's output shape
      }
      std::vector<std::size_t> members = gr.nodes;
      members.insert(members.end(), h.nodes.begin(), h.nodes.end());
      if (!Runner<device::Simulator>::create(soc, make_fused(local_, members).op)) continue;
      ScopeMerge m;
      m.from_last = last;
      m.into_first = *next;
      if (gr.nodes.size() > 1) {
        m.needs =
            kinds_[head] == SgatOpKind::conv ? SgatPass::conv_bn_act : SgatPass::matmul_bias_act;
      }
      m.parameter = "scope." + std::to_string(last);
      merges_.push_back(std::move(m));
    }
    for (const auto& gr : gs) {
      if (gr.nodes.size() < 2) continue;
      const SgatOpKind k = kinds_[gr.nodes.front()];
      if (k == SgatOpKind::conv || local_.nodes[gr.nodes.front()].type == "DepthwiseConv2D") {
        present_[0] = true;
      } else if (k == SgatOpKind::matmul) {
        present_[1] = true;
      } else {
        present_[2] = true;
      }
    }
  }

  void find_formats() {
    const auto& gs = groups_[7];
    const auto of = group_index(gs, local_.nodes.size());
    for (const auto& gr : gs) {
      const std::size_t last = gr.nodes.back();
      const SgatOpKind head = kinds_[gr.nodes.front()];
      if (head != SgatOpKind::matmul && head != SgatOpKind::softmax &&
          head != SgatOpKind::elementwise) {
        continue;
      }
      const Node& node = local_.nodes[last];
      for (std::size_t k = 0; k < node.outputs.size(); ++k) {
        const TensorInfo& t = tensors_.at(node.outputs[k].name);
        if (t.escapes || t.desc.shape.size() < 2 || t.desc.format != Format::ND) continue;
        bool wanted = head == SgatOpKind::matmul;
        for (const auto r : t.readers) {
          if (of[r] == npos) continue;
          const SgatOpKind rk = kinds_[gs[of[r]].nodes.front()];
          wanted = wanted || rk == SgatOpKind::matmul || rk == SgatOpKind::softmax;
        }
        if (!wanted) continue;
        formats_.push_back({node.outputs[k].name, last, k,
                            "fmt." + std::to_string(last) + "." + std::to_string(k)});
      }
    }
  }

  void build_space() {
    std::vector<Parameter> ps;
    std::vector<Constraint> cs;
    const std::int64_t top = std::max<std::int64_t>(
        1, std::min<std::int64_t>(batch_, std::max<std::int64_t>(1, options_.max_slices)));
    ps.push_back(range("cut", 1, top));
    if (!options_.nonhomo_split && top > 1) {
      cs.push_back(divides("cut", static_cast<double>(batch_)));
    }
    ps.push_back(flag("l2_optimize"));
    pass_dim_.fill(npos);
    for (std::size_t p = 0; p < 3; ++p) {
      if (!present_[p]) continue;
      pass_dim_[p] = ps.size();
      ps.push_back(flag(std::string(sgat_pass_parameters[p])));
    }
    merge_dim_ = ps.size();
    std::map<std::size_t, std::vector<std::string>> into;
    for (const auto& m : merges_) {
      ps.push_back(flag(m.parameter));
      into[m.into_first].push_back(m.parameter);
      if (m.needs && present_[static_cast<std::size_t>(*m.needs)]) {
        const std::string pass(sgat_pass_parameters[static_cast<std::size_t>(*m.needs)]);
        cs.push_back(predicate(
            {m.parameter, pass}, [](std::span<const double> x) { return x[0] == 0 || x[1] == 1; },
            m.parameter + " needs " + pass));
      }
    }
    for (const auto& [node, names] : into) {
      if (names.size() > 1) cs.push_back(sum_at_most(names, 1));  // one scope absorbs it
    }
    format_dim_ = ps.size();
    for (const auto& f : formats_) ps.push_back(enumeration(f.parameter, {"ND", "FRACTAL_NZ"}));
    Configuration def(ps.size(), 0);
    for (std::size_t p = 0; p < 3; ++p) {
      if (pass_dim_[p] != npos) def[pass_dim_[p]] = 1;  // OPAT's fusion is on
    }
    space_ = std::make_shared<const Space>(std::move(ps), std::move(cs));
    default_ = std::move(def);
  }

  Subgraph subgraph_;
  SubgraphSpaceOptions options_;
  Graph local_;
  std::vector<SgatOpKind> kinds_;
  std::map<std::string, TensorInfo> tensors_;
  std::vector<std::vector<bool>> input_batched_;
  std::vector<std::string> weights_;
  std::int64_t batch_ = 1;
  std::array<std::vector<FusedOperator>, 8> groups_;
  std::vector<ScopeMerge> merges_;
  std::vector<FormatChoice> formats_;
  std::array<bool, 3> present_{false, false, false};
  std::array<std::size_t, 3> pass_dim_{};
  std::size_t merge_dim_ = 0;
  std::size_t format_dim_ = 0;
  std::shared_ptr<const Space> space_;
  Configuration default_;
};

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SUBGRAPH_SPACE_HPP
