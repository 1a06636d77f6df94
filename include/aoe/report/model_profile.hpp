// A simulated profile of a model before and after tuning: per operator execution its place on
// the stream, its duration (the job's figure, so that the operators sum to the result file's
// model time) and, where the simulator models it, its pipes as the timing model schedules them
// (measure/simulator/detail/timing.hpp). What the trace, the op_summary CSV and the HTML report
// are drawn from; everything in it is simulated. docs/reports.md.
#ifndef AOE_REPORT_MODEL_PROFILE_HPP
#define AOE_REPORT_MODEL_PROFILE_HPP

#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/jobs/opat_report.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/value.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aoe::report {

/// One operator execution on the simulated stream.
struct OpExecution {
  std::string name;
  std::string type;
  double start_us = 0;     ///< from the start of the phase
  double duration_us = 0;  ///< the job's figure (result file)
  /// The timing model's breakdown of the configuration in use, when the simulator models it.
  std::optional<sim::detail::Profile> profile{};
  std::string knowledge;  ///< "Schedule: m_l0=64, ...; Format: ..." (empty: the default)
  const OperatorDesc* desc = nullptr;  ///< shapes, types and formats, when known
};

/// The model on the stream, one phase (before or after tuning).
struct Phase {
  std::string name;  ///< "before tuning", "after tuning"
  std::vector<OpExecution> ops;
  [[nodiscard]] double total_us() const {
    double t = 0;
    for (const auto& o : ops) t += o.duration_us;
    return t;
  }
};

/// A job's simulated profile.
struct ModelProfile {
  std::string model;
  std::string soc;
  std::vector<Phase> phases;           ///< before, after
  std::vector<FusedOperator> fused{};  ///< owns the descriptions `desc` points to
};

namespace detail {

inline std::string knowledge_text(
    const std::vector<std::pair<std::string, std::vector<NamedValue>>>& knowledge) {
  std::string s;
  for (const auto& [kind, values] : knowledge) {
    if (!s.empty()) s += "; ";
    s += kind + ":";
    for (std::size_t i = 0; i < values.size(); ++i) {
      s += (i == 0 ? " " : ", ") + values[i].name + "=" + values[i].value.to_string();
    }
  }
  return s;
}

/// The profile of `op` with the parameters of `knowledge` over its defaults; nullopt when the
/// simulator has no model of it or the configuration does not fit.
inline std::optional<sim::detail::Profile> simulate(
    const sim::Soc& soc, const OperatorDesc& op,
    const std::vector<std::pair<std::string, std::vector<NamedValue>>>* knowledge) {
  auto runner = Runner<device::Simulator>::create(
      soc, op,
      SimulatorOptions{
          .knowledge = {sim::Knowledge::schedule, sim::Knowledge::format, sim::Knowledge::impl}});
  if (!runner) return std::nullopt;
  Configuration c = runner->default_configuration();
  if (knowledge != nullptr) {
    auto values = runner->space().named_values(c);
    for (const auto& kind : *knowledge) {
      for (const auto& nv : kind.second) {
        for (auto& v : values) {
          if (v.name == nv.name) v.value = nv.value;
        }
      }
    }
    auto found = runner->space().find(values);
    if (!found) return std::nullopt;
    c = *found;
  }
  sim::detail::Profile p;
  const auto o = runner->profile(c, p);
  if (o.buffer != sim::detail::Buffer::none) return std::nullopt;
  return p;
}

}  // namespace detail

/// The OPAT job's profile: the report's operators in model order with their default and tuned
/// times, each with the simulator's breakdown of its default and chosen configurations.
[[nodiscard]] inline ModelProfile opat_profile(const Graph& graph, const OpatReport& report,
                                               const sim::Soc& soc) {
  ModelProfile m;
  m.model = report.tuning_name;
  m.soc = soc.name;
  m.fused = fuse(graph);
  std::map<std::string, const OperatorDesc*> by_name;
  for (const auto& f : m.fused) by_name.emplace(f.op.name, &f.op);
  Phase before{"before tuning", {}};
  Phase after{"after tuning", {}};
  double t0 = 0;
  double t1 = 0;
  for (const auto& op : report.operators) {
    if (op.failed()) continue;
    const auto it = by_name.find(op.op_name);
    const OperatorDesc* desc = it == by_name.end() ? nullptr : it->second;
    OpExecution b{op.op_name, op.op_type, t0, op.default_us, std::nullopt, "", desc};
    OpExecution a{op.op_name,   op.op_type,   t1,
                  op.result_us, std::nullopt, detail::knowledge_text(op.knowledge),
                  desc};
    if (desc != nullptr) {
      b.profile = detail::simulate(soc, *desc, nullptr);
      a.profile = detail::simulate(soc, *desc, &op.knowledge);
    }
    t0 += b.duration_us;
    t1 += a.duration_us;
    before.ops.push_back(std::move(b));
    after.ops.push_back(std::move(a));
  }
  m.phases.push_back(std::move(before));
  m.phases.push_back(std::move(after));
  return m;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_MODEL_PROFILE_HPP
