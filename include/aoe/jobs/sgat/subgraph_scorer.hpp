// The simulated time of a whole subgraph under a strategy (docs/sgat.md#the-scorer): the
// subgraph runs slice by slice; in each slice every fusion scope is one kernel, timed by
// Runner<device::Simulator> with its built-in heuristic policy (the operator's untuned tiling:
// SGAT comes before OPAT and does not tune tilings) on the slice's shapes, with the GM rates of
// the SoC blended by how many of the kernel's bytes come from L2 instead of HBM; a TransData
// (the simulator's TransData cost, parse.hpp) wherever a tensor is stored in another format
// than an operator reads or writes. A measure policy: the Tuner drives it, and ParallelMeasure
// runs it in several threads (`evaluate` is const and thread-safe).
#ifndef AOE_JOBS_SGAT_SUBGRAPH_SCORER_HPP
#define AOE_JOBS_SGAT_SUBGRAPH_SCORER_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/fusion.hpp"
#include "aoe/jobs/sgat/subgraph_space.hpp"
#include "aoe/measure/measure_each.hpp"
#include "aoe/measure/simulator/costs.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

/// One fusion scope (one kernel per slice) of a scored strategy.
struct ScopeTiming {
  std::vector<std::size_t> nodes;  ///< local node indices, in data-flow order
  std::string type;                ///< the fused type, "Conv2D+BatchNorm+Add+Relu"
  double seconds = 0;              ///< its kernels over all slices (TransData not included)
};

/// A strategy's simulated time and what it is made of.
struct SubgraphTiming {
  double seconds = 0;  ///< the subgraph end to end
  SubgraphStrategy strategy;
  std::vector<ScopeTiming> scopes;      ///< in execution order
  std::size_t transdata_ops = 0;        ///< TransData kernels over all slices
  double transdata_seconds = 0;         ///< their time
  std::vector<std::string> resident;    ///< intermediates kept in L2 (in the largest slice)
  bool weights_resident = false;        ///< slices after the first read the weights from L2
  std::map<std::string, bool> fractal;  ///< tensors stored in FRACTAL_NZ between operators
};

/// Scores strategies of one subgraph on a SoC.
class SubgraphScorer {
 public:
  static constexpr bool reports_device_time = true;

  SubgraphScorer(std::shared_ptr<const SubgraphSpace> space, sim::Soc soc)
      : space_(std::move(space)), soc_(std::move(soc)), cache_(std::make_shared<Cache>()) {}

  [[nodiscard]] const Space& space() const noexcept { return space_->space(); }
  [[nodiscard]] Configuration default_configuration() const {
    return space_->default_configuration();
  }
  [[nodiscard]] const SubgraphSpace& subgraph_space() const noexcept { return *space_; }
  [[nodiscard]] const sim::Soc& soc() const noexcept { return soc_; }

  /// The strategy's time and breakdown, or why it cannot run: `invalid_argument` for a
  /// configuration outside the space's constraints, `unsupported` for an operator or fusion
  /// scope the simulator has no model for.
  [[nodiscard]] Result<SubgraphTiming> timing(const Configuration& c) const {
    const SubgraphSpace& sp = *space_;
    if (!sp.space().is_valid(c)) {
      const Constraint* broken = sp.space().in_bounds(c) ? sp.space().violated(c) : nullptr;
      return make_error(Errc::invalid_argument,
                        broken != nullptr ? "violates constraint '" + broken->description() + "'"
                                          : std::string("configuration out of the space's bounds"));
    }
    SubgraphTiming out;
    out.strategy = sp.decode(c);
    const Plan plan = make_plan(out);
    const auto sizes = slice_sizes(out.strategy.slices);
    for (std::size_t z = 0; z < sizes.size(); ++z) {
      const SliceRun run = slice_run(plan, out.strategy, sizes[z], z == 0);
      if (run.first) {
        for (const auto& [name, r] : run.resident) {
          if (r) out.resident.push_back(name);
        }
        out.weights_resident = run.weights_l2;
      }
      for (std::size_t s = 0; s < plan.scopes.size(); ++s) {
        if (auto k = add_kernels(plan, run, s, out); !k) return k.error();
        add_scope_transdata(plan, run, s, out);
      }
      add_layout_transdata(plan, run, out);
    }
    out.seconds += out.transdata_seconds;
    return out;
  }

  /// One configuration's measurement: the subgraph's simulated seconds, status `constraints`
  /// for a configuration the constraints reject, `compile` for a scope the simulator cannot
  /// time.
  [[nodiscard]] Measurement evaluate(const Configuration& c) const {
    auto t = timing(c);
    if (!t) {
      return Measurement::failure(t.error().code == make_error_code(Errc::invalid_argument)
                                      ? Status::constraints
                                      : Status::compile,
                                  t.error().message);
    }
    return Measurement::success(t->seconds, {}, t->seconds);
  }

  [[nodiscard]] std::vector<Measurement> measure(SpaceView /*view*/,
                                                 std::span<const Configuration> batch) const {
    return measure_each(*this, batch);
  }

 private:
  /// One fusion scope of a strategy: its operator, its inputs (name, batched) in make_fused's
  /// order, its outputs and the formats it reads and writes.
  struct ScopeInfo {
    OperatorDesc op;
    std::vector<std::pair<std::string, bool>> inputs;
    std::vector<std::string> outputs;
    SgatOpKind head = SgatOpKind::other;
    FormatBehaviour behaviour = FormatBehaviour::native;
    bool kernel_fractal = false;  ///< the format the kernel computes in
  };

  /// An intermediate kept in HBM or L2: its bytes (whole batch) and the steps it lives in.
  struct Buffer {
    double bytes = 0;
    std::size_t first = 0, last = 0;
  };

  /// What a strategy fixes before its slices are timed.
  struct Plan {
    std::vector<std::vector<std::size_t>> scopes;  ///< ordered by their last node
    std::vector<std::size_t> step_of;              ///< node -> its scope (npos: none)
    std::map<std::string, bool> fractal;           ///< stored format of every tensor
    std::vector<ScopeInfo> info;                   ///< per scope
    std::map<std::string, Buffer> buffers;         ///< internal buffers by root name
    double weight_bytes = 0;

    [[nodiscard]] bool stored_fractal(const std::string& tensor) const {
      const auto it = fractal.find(tensor);
      return it != fractal.end() && it->second;
    }
  };

  /// One distinct slice size: how many slices have it, whether it is the first (largest) size
  /// (whose first slice reads the weights from HBM), and what L2 holds while it runs.
  struct SliceRun {
    std::int64_t slice = 0;
    std::int64_t count = 0;
    bool first = false;
    std::map<std::string, bool> resident;  ///< by root name
    bool weights_l2 = false;
  };

  /// Whether the model stores `d` in FRACTAL_NZ.
  [[nodiscard]] static bool model_fractal(const TensorDesc& d) {
    return d.format == Format::FRACTAL_NZ;
  }

  /// The scopes, the stored formats and each scope's operator and formats; fills
  /// `out.scopes` and `out.fractal`.
  [[nodiscard]] Plan make_plan(SubgraphTiming& out) const {
    Plan plan;
    plan.scopes = fusion_scopes(out.strategy);
    plan.step_of.assign(space_->graph().nodes.size(), SubgraphSpace::npos);
    for (std::size_t s = 0; s < plan.scopes.size(); ++s) {
      for (const auto m : plan.scopes[s]) plan.step_of[m] = s;
    }
    store_formats(plan, out);
    for (const auto& scope : plan.scopes) {
      plan.info.push_back(scope_info(plan, scope));
      ScopeTiming t;
      t.nodes = scope;
      t.type = plan.info.back().op.type;
      out.scopes.push_back(std::move(t));
    }
    find_buffers(plan);
    for (const auto& w : space_->weights()) {
      plan.weight_bytes += static_cast<double>(space_->tensor(w).desc.bytes());
    }
    return plan;
  }

  /// OPAT's fusion under the strategy's passes, then the extra scopes the strategy merges;
  /// ordered by their last node: a scope's inputs are outputs of scopes ending earlier.
  [[nodiscard]] std::vector<std::vector<std::size_t>> fusion_scopes(
      const SubgraphStrategy& st) const {
    const SubgraphSpace& sp = *space_;
    const auto& groups = sp.groups(st.passes);
    std::vector<std::size_t> group_of(sp.graph().nodes.size(), SubgraphSpace::npos);
    std::vector<std::vector<std::size_t>> members;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      members.push_back(groups[gi].nodes);
      for (const auto m : groups[gi].nodes) group_of[m] = gi;
    }
    std::vector<bool> alive(members.size(), true);
    for (std::size_t k = 0; k < sp.merges().size(); ++k) {
      if (!st.merges[k]) continue;
      const auto& m = sp.merges()[k];
      const std::size_t a = group_of[m.from_last];
      const std::size_t b = group_of[m.into_first];
      if (a == SubgraphSpace::npos || b == SubgraphSpace::npos || a == b || !alive[a] ||
          !alive[b] || members[a].back() != m.from_last || members[b].front() != m.into_first) {
        continue;  // the passes left no cube scope ending there: nothing to merge
      }
      const SgatOpKind head = sp.kind(members[a].front());
      if (head != SgatOpKind::matmul && head != SgatOpKind::conv) continue;
      members[a].insert(members[a].end(), members[b].begin(), members[b].end());
      alive[b] = false;
    }
    std::vector<std::vector<std::size_t>> scopes;
    for (std::size_t gi = 0; gi < members.size(); ++gi) {
      if (alive[gi]) scopes.push_back(members[gi]);
    }
    std::sort(scopes.begin(), scopes.end(),
              [](const auto& x, const auto& y) { return x.back() < y.back(); });
    return scopes;
  }

  /// Stored formats: the model's, except the chosen FRACTAL_NZ tensors between scopes.
  void store_formats(Plan& plan, SubgraphTiming& out) const {
    const SubgraphSpace& sp = *space_;
    for (const auto& [name, t] : sp.tensors()) plan.fractal[name] = model_fractal(t.desc);
    for (std::size_t k = 0; k < sp.formats().size(); ++k) {
      const auto& f = sp.formats()[k];
      const std::size_t step = plan.step_of[f.node];
      const bool ends_scope = step != SubgraphSpace::npos && plan.scopes[step].back() == f.node;
      if (ends_scope && out.strategy.fractal[k]) {
        plan.fractal[f.tensor] = true;
        out.fractal[f.tensor] = true;
      }
    }
  }

  /// A scope's operator, inputs, outputs and formats.
  [[nodiscard]] ScopeInfo scope_info(const Plan& plan,
                                     const std::vector<std::size_t>& scope) const {
    const SubgraphSpace& sp = *space_;
    const Graph& g = sp.graph();
    ScopeInfo si;
    si.op = make_fused(g, scope).op;
    std::vector<std::string> internal;
    for (const auto m : scope) {
      for (const auto& o : g.nodes[m].outputs) internal.push_back(o.name);
    }
    for (const auto m : scope) {
      for (std::size_t k = 0; k < g.nodes[m].inputs.size(); ++k) {
        const auto& name = g.nodes[m].inputs[k].name;
        if (std::find(internal.begin(), internal.end(), name) != internal.end()) continue;
        si.inputs.emplace_back(name, sp.input_batched(m, k));
      }
    }
    for (const auto& o : g.nodes[scope.back()].outputs) si.outputs.push_back(o.name);
    si.head = sp.kind(scope.front());
    if (si.head == SgatOpKind::matmul) {
      si.behaviour = soc_.mte2_nd2nz ? FormatBehaviour::agnostic : FormatBehaviour::fractal;
    } else if (si.head == SgatOpKind::softmax || si.head == SgatOpKind::elementwise) {
      si.behaviour = FormatBehaviour::agnostic;
    }
    switch (si.behaviour) {
      case FormatBehaviour::fractal: si.kernel_fractal = true; break;
      case FormatBehaviour::agnostic:
        si.kernel_fractal = plan.stored_fractal(si.outputs.front());
        break;
      case FormatBehaviour::native:
        si.kernel_fractal = model_fractal(sp.tensor(si.outputs.front()).desc);
        break;
    }
    return si;
  }

  /// The format (FRACTAL_NZ or not) a scope's operator wants its input `i` in.
  [[nodiscard]] bool wanted(const ScopeInfo& si, std::size_t i) const {
    const auto& t = space_->tensor(si.inputs[i].first);
    if (si.behaviour == FormatBehaviour::native) return model_fractal(t.desc);
    const bool operand = si.head == SgatOpKind::matmul && i < 2;
    const bool same_size = t.desc.elements() == si.op.outputs.front().elements();
    return operand || same_size ? si.kernel_fractal : model_fractal(t.desc);
  }

  /// The intermediates that do not leave the subgraph, with the steps they live in.
  void find_buffers(Plan& plan) const {
    const SubgraphSpace& sp = *space_;
    for (std::size_t s = 0; s < plan.scopes.size(); ++s) {
      for (const auto& o : plan.info[s].outputs) {
        const auto& t = sp.tensor(o);
        if (t.escapes) continue;
        plan.buffers[o] = {static_cast<double>(t.desc.bytes()), s, s};
      }
    }
    for (const auto& [name, t] : sp.tensors()) {
      const auto it = plan.buffers.find(t.root);
      if (it == plan.buffers.end()) continue;
      for (const auto r : t.readers) {
        if (plan.step_of[r] != SubgraphSpace::npos)
          it->second.last = std::max(it->second.last, plan.step_of[r]);
      }
    }
  }

  /// Distinct slice sizes, largest first, with their counts.
  [[nodiscard]] static std::vector<std::pair<std::int64_t, std::int64_t>> slice_sizes(
      const std::vector<std::int64_t>& slices) {
    std::vector<std::pair<std::int64_t, std::int64_t>> sizes;
    for (const auto b : slices) {
      if (!sizes.empty() && sizes.back().first == b) {
        ++sizes.back().second;
      } else {
        sizes.emplace_back(b, 1);
      }
    }
    return sizes;
  }

  /// One slice size and its L2 residency: an intermediate stays in L2 when every intermediate
  /// live with it fits in the usable L2 at every step of its life (all or nothing per step).
  [[nodiscard]] SliceRun slice_run(const Plan& plan, const SubgraphStrategy& st,
                                   std::pair<std::int64_t, std::int64_t> size, bool first) const {
    SliceRun run;
    run.slice = size.first;
    run.count = size.second;
    run.first = first;
    if (!st.l2_optimize) return run;
    const double l2_usable = soc_.l2_usable_fraction * static_cast<double>(soc_.l2_bytes);
    const double ratio = static_cast<double>(run.slice) / static_cast<double>(space_->batch());
    std::vector<double> live(plan.scopes.size(), 0);
    for (const auto& [name, b] : plan.buffers) {
      for (std::size_t s = b.first; s <= b.last; ++s) live[s] += b.bytes * ratio;
    }
    std::vector<double> kept(plan.scopes.size(), 0);
    for (const auto& [name, b] : plan.buffers) {
      const double peak = *std::max_element(live.begin() + static_cast<std::ptrdiff_t>(b.first),
                                            live.begin() + static_cast<std::ptrdiff_t>(b.last) + 1);
      run.resident[name] = peak <= l2_usable;
      if (run.resident[name]) {
        for (std::size_t s = b.first; s <= b.last; ++s) kept[s] += b.bytes * ratio;
      }
    }
    const double peak_kept = kept.empty() ? 0.0 : *std::max_element(kept.begin(), kept.end());
    run.weights_l2 = st.slices.size() > 1 && plan.weight_bytes + peak_kept <= l2_usable;
    return run;
  }

  /// Whether `tensor` is in L2 during `run`.
  [[nodiscard]] bool is_resident(const SliceRun& run, const std::string& tensor) const {
    const auto it = run.resident.find(space_->tensor(tensor).root);
    return it != run.resident.end() && it->second;
  }

  /// `d` for one slice of `run`: a batched tensor's first dimension scaled to the slice.
  [[nodiscard]] TensorDesc scaled(const SliceRun& run, const TensorDesc& d, bool batched) const {
    const std::int64_t batch = space_->batch();
    TensorDesc x = d;
    if (batched && !x.shape.empty() && batch > 1) x.shape[0] = x.shape[0] / batch * run.slice;
    return x;
  }

  /// The simulator's TransData of `d` to or from FRACTAL_NZ, reading and writing L2 or HBM.
  [[nodiscard]] double transdata(const TensorDesc& d, bool to_fractal, bool l2) const {
    const double bytes = static_cast<double>(d.bytes());
    double pad = 1;
    if (d.shape.size() >= 2) {
      const auto r = d.shape[d.shape.size() - 2];
      const auto cols = d.shape.back();
      pad = sim::fractal_padding(r, cols);
    }
    const sim::Soc s = l2 ? blend(bytes, 0, bytes, 0) : soc_;
    return to_fractal ? sim::transdata_seconds(s, bytes, bytes * pad)
                      : sim::transdata_seconds(s, bytes * pad, bytes);
  }

  /// Scope `s`'s kernels in `run`: the first slice (weights from HBM), then the others.
  [[nodiscard]] Result<void> add_kernels(const Plan& plan, const SliceRun& run, std::size_t s,
                                         SubgraphTiming& out) const {
    const ScopeInfo& si = plan.info[s];
    OperatorDesc op = si.op;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      op.inputs[i] = scaled(run, op.inputs[i], si.inputs[i].second);
    }
    for (auto& o : op.outputs) o = scaled(run, o, true);
    if (si.head == SgatOpKind::matmul || si.head == SgatOpKind::softmax) {
      op.inputs[0].format = si.kernel_fractal ? Format::FRACTAL_NZ : Format::ND;
    }
    for (const bool first : {true, false}) {
      const std::int64_t on_hbm = run.first ? 1 : 0;  // the job's very first slice
      const std::int64_t runs = first ? on_hbm : run.count - on_hbm;
      if (runs == 0) continue;
      auto each = kernel_seconds(si, op, run, first);
      if (!each) return each.error();
      out.scopes[s].seconds += *each * static_cast<double>(runs);
      out.seconds += *each * static_cast<double>(runs);
    }
    return {};
  }

  /// One kernel of a scope (`op` scaled to the slice): the simulator's time on the SoC blended
  /// by where its bytes come from, plus the inputs its model does not read.
  [[nodiscard]] Result<double> kernel_seconds(const ScopeInfo& si, const OperatorDesc& op,
                                              const SliceRun& run, bool first) const {
    double r_l2 = 0, r_hbm = 0, w_l2 = 0, w_hbm = 0;
    std::vector<std::pair<double, bool>> extra_reads;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const auto& name = si.inputs[i].first;
      const double bytes = static_cast<double>(op.inputs[i].bytes());
      const bool weight =
          !si.inputs[i].second && space_->tensor(name).producer == SubgraphSpace::npos;
      const bool l2 = weight ? (!first && run.weights_l2) : is_resident(run, name);
      (l2 ? r_l2 : r_hbm) += bytes;
      // The simulator's MatMul model reads only A, B and the bias; a residual or a mask
      // an extra scope brings in is read on top of it.
      if (si.head == SgatOpKind::matmul && i >= 2 &&
          op.inputs[i].elements() != op.outputs.front().shape.back()) {
        extra_reads.emplace_back(bytes, l2);
      }
    }
    for (std::size_t o = 0; o < op.outputs.size(); ++o) {
      const double bytes = static_cast<double>(op.outputs[o].bytes());
      (is_resident(run, si.outputs[o]) ? w_l2 : w_hbm) += bytes;
    }
    auto t = simulated_seconds(op, blend(r_l2, r_hbm, w_l2, w_hbm));
    if (!t) return t.error();
    double extra = 0;
    for (const auto& [bytes, l2] : extra_reads) extra += bytes / chip_read_rate(l2);
    return *t + extra;
  }

  /// The TransData kernels in front of scope `s`'s inputs and behind its outputs in `run`.
  void add_scope_transdata(const Plan& plan, const SliceRun& run, std::size_t s,
                           SubgraphTiming& out) const {
    const SubgraphSpace& sp = *space_;
    const ScopeInfo& si = plan.info[s];
    for (std::size_t i = 0; i < si.inputs.size(); ++i) {
      const auto& name = si.inputs[i].first;
      const bool want = wanted(si, i);
      if (plan.stored_fractal(name) == want) continue;
      const bool batched = si.inputs[i].second;
      const std::int64_t runs = batched ? run.count : (run.first ? 1 : 0);  // a weight: once
      if (runs == 0) continue;
      const double td = transdata(scaled(run, sp.tensor(name).desc, batched), want,
                                  batched && is_resident(run, name));
      add_transdata(td, runs, out);
    }
    for (const auto& o : si.outputs) {
      const bool written = si.behaviour == FormatBehaviour::native
                               ? model_fractal(sp.tensor(o).desc)
                               : si.kernel_fractal;
      const bool stored = plan.stored_fractal(o);
      if (stored == written) continue;
      const double td =
          transdata(scaled(run, sp.tensor(o).desc, true), stored, is_resident(run, o));
      add_transdata(td, run.count, out);
    }
  }

  /// Layout-only operators read their input in the model's format.
  void add_layout_transdata(const Plan& plan, const SliceRun& run, SubgraphTiming& out) const {
    const SubgraphSpace& sp = *space_;
    const Graph& g = sp.graph();
    for (std::size_t n = 0; n + 1 < g.nodes.size(); ++n) {
      if (sp.kind(n) != SgatOpKind::layout || g.nodes[n].inputs.empty()) continue;
      const auto& name = g.nodes[n].inputs[0].name;
      const bool want = model_fractal(sp.tensor(name).desc);
      if (plan.stored_fractal(name) == want) continue;
      const double td = transdata(scaled(run, sp.tensor(name).desc, sp.input_batched(n, 0)), want,
                                  is_resident(run, name));
      add_transdata(td, run.count, out);
    }
  }

  static void add_transdata(double seconds, std::int64_t runs, SubgraphTiming& out) {
    out.transdata_seconds += seconds * static_cast<double>(runs);
    out.transdata_ops += static_cast<std::size_t>(runs);
  }
  struct Cache {
    std::mutex mutex;
    std::unordered_map<std::string, std::pair<double, std::string>> times;
  };

  /// The SoC seen by a kernel that reads `r_l2` bytes from L2 and `r_hbm` from HBM and writes
  /// `w_l2` and `w_hbm`: per-core read and write rates and the chip cap are the byte-weighted
  /// harmonic means of the L2 and HBM ones (the kernel moves each byte at its source's rate).
  /// With nothing in L2 it is the SoC itself, so the untuned strategy times exactly as OPAT's
  /// operators do.
  [[nodiscard]] sim::Soc blend(double r_l2, double r_hbm, double w_l2, double w_hbm) const {
    if (r_l2 <= 0 && w_l2 <= 0) return soc_;
    sim::Soc s = soc_;
    if (r_l2 + r_hbm > 0) s.gm_read = (r_l2 + r_hbm) / (r_l2 / soc_.l2_read + r_hbm / soc_.gm_read);
    if (w_l2 + w_hbm > 0) {
      s.gm_write = (w_l2 + w_hbm) / (w_l2 / soc_.l2_write + w_hbm / soc_.gm_write);
    }
    const double l2_chip = l2_chip_bandwidth();
    s.gm_bandwidth = (r_l2 + r_hbm + w_l2 + w_hbm) /
                     ((r_hbm + w_hbm) / soc_.gm_bandwidth + (r_l2 + w_l2) / l2_chip);
    return s;
  }

  /// L2's chip-level read rate: the per-core L2 rate times the cores (no published cap).
  [[nodiscard]] double l2_chip_bandwidth() const {
    const int cores = std::max(soc_.cube_cores, soc_.vector_op_cores());
    return soc_.l2_read * cores * std::max(soc_.frequency_ghz, soc_.vector_op_frequency_ghz()) *
           1e9;
  }

  /// Bytes per second the whole chip reads from L2 or from HBM.
  [[nodiscard]] double chip_read_rate(bool l2) const {
    return l2 ? l2_chip_bandwidth()
              : soc_.effective_gm_bandwidth(soc_.cube_cores, soc_.frequency_ghz);
  }

  /// The simulator's time of `op` with its heuristic policy on `soc`, cached by the operator's
  /// key and the SoC's memory rates (the only fields `blend` changes).
  [[nodiscard]] Result<double> simulated_seconds(const OperatorDesc& op,
                                                 const sim::Soc& soc) const {
    char rates[96];
    std::snprintf(rates, sizeof rates, "|%.17g|%.17g|%.17g", soc.gm_read, soc.gm_write,
                  soc.gm_bandwidth);
    std::string key = operator_key_text(op, "") + rates;
    {
      std::lock_guard lock(cache_->mutex);
      const auto it = cache_->times.find(key);
      if (it != cache_->times.end()) {
        if (!it->second.second.empty()) {
          return make_error(Errc::unsupported, it->second.second);
        }
        return it->second.first;
      }
    }
    std::pair<double, std::string> value{0.0, ""};
    auto runner = Runner<device::Simulator>::create(soc, op);
    if (!runner) {
      value.second = runner.error().message;
    } else {
      const Measurement m = runner->evaluate(runner->default_configuration());
      if (m.ok()) {
        value.first = m.value;
      } else {
        value.second = m.message;
      }
    }
    {
      std::lock_guard lock(cache_->mutex);
      cache_->times.emplace(std::move(key), value);
    }
    if (!value.second.empty()) return make_error(Errc::unsupported, value.second);
    return value.first;
  }

  std::shared_ptr<const SubgraphSpace> space_;
  sim::Soc soc_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SUBGRAPH_SCORER_HPP
