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
#include "aoe/measure/measurement.hpp"
#include "aoe/measure/simulator/detail/parse.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/repo/bank_key.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

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
    const SubgraphStrategy& st = out.strategy;
    const Graph& g = sp.graph();
    const std::int64_t batch = sp.batch();

    // Fusion scopes: OPAT's fusion under the strategy's passes, then the extra scopes.
    const auto& groups = sp.groups(st.passes);
    std::vector<std::size_t> group_of(g.nodes.size(), SubgraphSpace::npos);
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
    // Ordered by their last node: a scope's inputs are outputs of scopes ending earlier.
    std::sort(scopes.begin(), scopes.end(),
              [](const auto& x, const auto& y) { return x.back() < y.back(); });
    std::vector<std::size_t> step_of(g.nodes.size(), SubgraphSpace::npos);
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      for (const auto m : scopes[s]) step_of[m] = s;
    }

    // Stored formats: the model's, except the chosen FRACTAL_NZ tensors between scopes.
    const auto native = [](const TensorDesc& d) { return d.format == Format::FRACTAL_NZ; };
    std::map<std::string, bool> fractal;
    for (const auto& [name, t] : sp.tensors()) fractal[name] = native(t.desc);
    for (std::size_t k = 0; k < sp.formats().size(); ++k) {
      const auto& f = sp.formats()[k];
      const bool ends_scope =
          step_of[f.node] != SubgraphSpace::npos && scopes[step_of[f.node]].back() == f.node;
      if (ends_scope && st.fractal[k]) {
        fractal[f.tensor] = true;
        out.fractal[f.tensor] = true;
      }
    }

    // Each scope's operator, its inputs (name, batched) in make_fused's order, and formats.
    struct ScopeInfo {
      OperatorDesc op;
      std::vector<std::pair<std::string, bool>> inputs;
      std::vector<std::string> outputs;
      SgatOpKind head = SgatOpKind::other;
      FormatBehaviour behaviour = FormatBehaviour::native;
      bool kernel_fractal = false;  // the format the kernel computes in
    };
    std::vector<ScopeInfo> info(scopes.size());
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      ScopeInfo& si = info[s];
      si.op = make_fused(g, scopes[s]).op;
      std::vector<std::string> internal;
      for (const auto m : scopes[s]) {
        for (const auto& o : g.nodes[m].outputs) internal.push_back(o.name);
      }
      for (const auto m : scopes[s]) {
        for (std::size_t k = 0; k < g.nodes[m].inputs.size(); ++k) {
          const auto& name = g.nodes[m].inputs[k].name;
          if (std::find(internal.begin(), internal.end(), name) != internal.end()) continue;
          si.inputs.emplace_back(name, sp.input_batched(m, k));
        }
      }
      for (const auto& o : g.nodes[scopes[s].back()].outputs) si.outputs.push_back(o.name);
      si.head = sp.kind(scopes[s].front());
      if (si.head == SgatOpKind::matmul) {
        si.behaviour = soc_.mte2_nd2nz ? FormatBehaviour::agnostic : FormatBehaviour::fractal;
      } else if (si.head == SgatOpKind::softmax || si.head == SgatOpKind::elementwise) {
        si.behaviour = FormatBehaviour::agnostic;
      }
      switch (si.behaviour) {
        case FormatBehaviour::fractal: si.kernel_fractal = true; break;
        case FormatBehaviour::agnostic: si.kernel_fractal = fractal[si.outputs.front()]; break;
        case FormatBehaviour::native:
          si.kernel_fractal = native(sp.tensor(si.outputs.front()).desc);
          break;
      }
      ScopeTiming t;
      t.nodes = scopes[s];
      t.type = si.op.type;
      out.scopes.push_back(std::move(t));
    }
    // The format an operator wants input `i` of scope `s` in.
    const auto wanted = [&](const ScopeInfo& si, std::size_t i) {
      const auto& t = sp.tensor(si.inputs[i].first);
      if (si.behaviour == FormatBehaviour::native) return native(t.desc);
      const bool operand = si.head == SgatOpKind::matmul && i < 2;
      const bool same_size = t.desc.elements() == si.op.outputs.front().elements();
      return operand || same_size ? si.kernel_fractal : native(t.desc);
    };

    // L2 residency, per slice size: an intermediate stays in L2 when every intermediate live
    // with it fits in the usable L2 at every step of its life (all or nothing per step).
    const double l2_usable = soc_.l2_usable_fraction * static_cast<double>(soc_.l2_bytes);
    struct Buffer {
      double bytes = 0;  // whole batch
      std::size_t first = 0, last = 0;
    };
    std::map<std::string, Buffer> buffers;  // internal buffers by root name
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      for (const auto& o : info[s].outputs) {
        const auto& t = sp.tensor(o);
        if (t.escapes) continue;
        buffers[o] = {static_cast<double>(t.desc.bytes()), s, s};
      }
    }
    for (const auto& [name, t] : sp.tensors()) {
      const auto it = buffers.find(t.root);
      if (it == buffers.end()) continue;
      for (const auto r : t.readers) {
        if (step_of[r] != SubgraphSpace::npos)
          it->second.last = std::max(it->second.last, step_of[r]);
      }
    }
    double weight_bytes = 0;
    for (const auto& w : sp.weights())
      weight_bytes += static_cast<double>(sp.tensor(w).desc.bytes());

    // Distinct slice sizes, largest first, with their counts.
    std::vector<std::pair<std::int64_t, std::int64_t>> sizes;
    for (const auto b : st.slices) {
      if (!sizes.empty() && sizes.back().first == b) {
        ++sizes.back().second;
      } else {
        sizes.emplace_back(b, 1);
      }
    }

    for (std::size_t z = 0; z < sizes.size(); ++z) {
      const std::int64_t slice = sizes[z].first;
      const std::int64_t count = sizes[z].second;
      const double ratio = static_cast<double>(slice) / static_cast<double>(batch);
      std::map<std::string, bool> resident;
      bool weights_l2 = false;
      if (st.l2_optimize) {
        std::vector<double> live(scopes.size(), 0);
        for (const auto& [name, b] : buffers) {
          for (std::size_t s = b.first; s <= b.last; ++s) live[s] += b.bytes * ratio;
        }
        std::vector<double> kept(scopes.size(), 0);
        for (const auto& [name, b] : buffers) {
          const double peak =
              *std::max_element(live.begin() + static_cast<std::ptrdiff_t>(b.first),
                                live.begin() + static_cast<std::ptrdiff_t>(b.last) + 1);
          resident[name] = peak <= l2_usable;
          if (resident[name]) {
            for (std::size_t s = b.first; s <= b.last; ++s) kept[s] += b.bytes * ratio;
          }
        }
        const double peak_kept = kept.empty() ? 0.0 : *std::max_element(kept.begin(), kept.end());
        weights_l2 = st.slices.size() > 1 && weight_bytes + peak_kept <= l2_usable;
        if (z == 0) {
          for (const auto& [name, r] : resident) {
            if (r) out.resident.push_back(name);
          }
          out.weights_resident = weights_l2;
        }
      }
      const auto is_resident = [&](const std::string& tensor) {
        const auto it = resident.find(sp.tensor(tensor).root);
        return it != resident.end() && it->second;
      };
      const auto scaled = [&](const TensorDesc& d, bool batched) {
        TensorDesc x = d;
        if (batched && !x.shape.empty() && batch > 1) x.shape[0] = x.shape[0] / batch * slice;
        return x;
      };
      const auto transdata = [&](const TensorDesc& d, bool to_fractal, bool l2) {
        const double bytes = static_cast<double>(d.bytes());
        double pad = 1;
        if (d.shape.size() >= 2) {
          const auto r = d.shape[d.shape.size() - 2];
          const auto cols = d.shape.back();
          pad =
              static_cast<double>(sim::detail::round_up(r, 16) * sim::detail::round_up(cols, 16)) /
              static_cast<double>(r * cols);
        }
        const sim::Soc s = l2 ? blend(bytes, 0, bytes, 0) : soc_;
        return to_fractal ? sim::detail::transdata_seconds(s, bytes, bytes * pad)
                          : sim::detail::transdata_seconds(s, bytes * pad, bytes);
      };

      for (std::size_t s = 0; s < scopes.size(); ++s) {
        const ScopeInfo& si = info[s];
        OperatorDesc op = si.op;
        for (std::size_t i = 0; i < op.inputs.size(); ++i) {
          op.inputs[i] = scaled(op.inputs[i], si.inputs[i].second);
        }
        for (auto& o : op.outputs) o = scaled(o, true);
        if (si.head == SgatOpKind::matmul || si.head == SgatOpKind::softmax) {
          op.inputs[0].format = si.kernel_fractal ? Format::FRACTAL_NZ : Format::ND;
        }
        // The kernel: first slice (weights from HBM), then the others.
        for (const bool first : {true, false}) {
          const std::int64_t runs = first ? (z == 0 ? 1 : 0) : count - (z == 0 ? 1 : 0);
          if (runs == 0) continue;
          double r_l2 = 0, r_hbm = 0, w_l2 = 0, w_hbm = 0;
          double extra = 0;
          std::vector<std::pair<double, bool>> extra_reads;
          for (std::size_t i = 0; i < op.inputs.size(); ++i) {
            const auto& name = si.inputs[i].first;
            const double bytes = static_cast<double>(op.inputs[i].bytes());
            const bool weight =
                !si.inputs[i].second && sp.tensor(name).producer == SubgraphSpace::npos;
            const bool l2 = weight ? (!first && weights_l2) : is_resident(name);
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
            (is_resident(si.outputs[o]) ? w_l2 : w_hbm) += bytes;
          }
          const sim::Soc s_blend = blend(r_l2, r_hbm, w_l2, w_hbm);
          auto t = kernel_seconds(op, s_blend);
          if (!t) return t.error();
          for (const auto& [bytes, l2] : extra_reads) extra += bytes / chip_read_rate(l2);
          const double each = *t + extra;
          out.scopes[s].seconds += each * static_cast<double>(runs);
          out.seconds += each * static_cast<double>(runs);
        }
        // TransData in front of the scope's inputs and behind its output.
        for (std::size_t i = 0; i < si.inputs.size(); ++i) {
          const auto& name = si.inputs[i].first;
          const bool want = wanted(si, i);
          if (fractal[name] == want) continue;
          const bool batched = si.inputs[i].second;
          const std::int64_t runs = batched ? count : (z == 0 ? 1 : 0);  // a weight: once
          if (runs == 0) continue;
          const double td =
              transdata(scaled(sp.tensor(name).desc, batched), want, batched && is_resident(name));
          out.transdata_seconds += td * static_cast<double>(runs);
          out.transdata_ops += static_cast<std::size_t>(runs);
        }
        for (const auto& o : si.outputs) {
          const bool written = si.behaviour == FormatBehaviour::native ? native(sp.tensor(o).desc)
                                                                       : si.kernel_fractal;
          if (fractal[o] == written) continue;
          const double td = transdata(scaled(sp.tensor(o).desc, true), fractal[o], is_resident(o));
          out.transdata_seconds += td * static_cast<double>(count);
          out.transdata_ops += static_cast<std::size_t>(count);
        }
      }
      // Layout-only operators read their input in the model's format.
      for (std::size_t n = 0; n + 1 < g.nodes.size(); ++n) {
        if (sp.kind(n) != SgatOpKind::layout || g.nodes[n].inputs.empty()) continue;
        const auto& name = g.nodes[n].inputs[0].name;
        const bool want = native(sp.tensor(name).desc);
        if (fractal[name] == want) continue;
        const double td = transdata(scaled(sp.tensor(name).desc, sp.input_batched(n, 0)), want,
                                    is_resident(name));
        out.transdata_seconds += td * static_cast<double>(count);
        out.transdata_ops += static_cast<std::size_t>(count);
      }
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
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (const auto& c : batch) out.push_back(evaluate(c));
    return out;
  }

 private:
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
  [[nodiscard]] Result<double> kernel_seconds(const OperatorDesc& op, const sim::Soc& soc) const {
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
