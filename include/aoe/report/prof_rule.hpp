// prof_rule_0.json: advice derived from a job's profile, each naming the operator (or
// all-reduce segment), what the profile shows and the `aoe` job that acts on it
// (docs/reports.md#prof_rule_0json). The figures are the simulator's, as every profile's.
#ifndef AOE_REPORT_PROF_RULE_HPP
#define AOE_REPORT_PROF_RULE_HPP

#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/report/msprof_training.hpp"
#include "aoe/report/profile.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::report {

/// One piece of advice.
struct ProfRule {
  std::string rule_type;  ///< "memory bound", "TransData", "exposed all-reduce"
  std::string target;     ///< the operator's name, or the all-reduce segment
  std::string op_type;
  double time_us = 0;    ///< the operator's (segment's) time in the profile
  double cost_us = 0;    ///< what the rule is about: the TransData's, the exposed time
  std::string evidence;  ///< what the profile shows
  std::string suggestion;
  std::string command;  ///< the `aoe` job to run
};

/// Operators (of the model as it runs after the job) shown in the rules of one kind: the longest.
inline constexpr std::size_t prof_rule_operators = 10;

namespace detail {

/// `aoe` on `model` with `args`; the model as given on the command line.
inline std::string aoe_command(const std::string& model, const std::string& args) {
  return "aoe --model=" + (model.empty() ? std::string("<model>") : model) + " " + args;
}

/// Indices of the ops of `phase` for which `keep` holds, the longest first, at most `limit`.
template <class Keep>
std::vector<std::size_t> longest_where(const Phase& phase, Keep&& keep, std::size_t limit) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    if (phase.ops[i].profile && keep(phase.ops[i], *phase.ops[i].profile)) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return phase.ops[a].duration_us > phase.ops[b].duration_us;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

inline std::string percent_of(double part, double whole) {
  return number(whole > 0 ? 100.0 * part / whole : 0.0, 1) + "% of the model";
}

}  // namespace detail

/// The operators of the profiled phase bound by memory (the timing model's bound): SGAT's
/// fusion scopes and L2 planning keep their intermediates on chip; and those whose format costs
/// a TransData: OPAT's Format tuning (--Fop_format) or SGAT's format choices remove it.
[[nodiscard]] inline std::vector<ProfRule> operator_rules(const ModelProfile& m,
                                                          const std::string& model) {
  std::vector<ProfRule> rules;
  const Phase& phase = m.phases.back();
  const double total = phase.total_us();
  const auto memory = [](const OpExecution&, const sim::detail::Profile& p) {
    return p.bound == sim::detail::Bound::memory;
  };
  for (const auto i : detail::longest_where(phase, memory, prof_rule_operators)) {
    const auto& op = phase.ops[i];
    rules.push_back({"memory bound", op.name, op.type, op.duration_us, op.duration_us,
                     "bound by memory: its data movement (MTE2/MTE3 or GM bandwidth) is busier "
                     "than its compute, " +
                         detail::percent_of(op.duration_us, total),
                     "fuse it with its neighbours so that its inputs and outputs stay in UB/L2: "
                     "run subgraph tuning (SGAT), whose fusion scopes and L2 planning cover it",
                     detail::aoe_command(model, "--job_type=1")});
  }
  const auto transdata = [](const OpExecution&, const sim::detail::Profile& p) {
    return p.transdata > 0;
  };
  for (const auto i : detail::longest_where(phase, transdata, prof_rule_operators)) {
    const auto& op = phase.ops[i];
    const double us = op.profile->transdata * op.duration_us / op.profile->seconds;
    rules.push_back({"TransData", op.name, op.type, op.duration_us, us,
                     "its format costs a TransData of " + detail::number(us) + " us",
                     "tune its Format knowledge so that the kernel consumes the stored format "
                     "(OPAT --Fop_format), or let SGAT choose the format of the tensors between "
                     "operators",
                     detail::aoe_command(model, "--job_type=2 --Fop_format")});
  }
  return rules;
}

/// GDAT: the all-reduce left exposed after backward compute by the split in use.
[[nodiscard]] inline std::vector<ProfRule> gradient_rules(const GdatReport& r, const StepTrace& s,
                                                          const std::string& model) {
  std::vector<ProfRule> rules;
  const double exposed = r.timeline.exposed_communication() * 1e6;
  if (exposed <= 0 || s.reduces.empty()) return rules;
  const auto& last = s.reduces.back();
  const std::string segment = "all-reduce segment " + std::to_string(s.reduces.size() - 1);
  rules.push_back(
      {"exposed all-reduce", segment, "hcom_allReduce", last.duration_us, exposed,
       "the split " + r.result->split.to_string() + " leaves " + detail::number(exposed) +
           " us of all-reduce after backward compute (" +
           detail::number(100.0 * exposed / (r.timeline.iteration * 1e6), 1) +
           "% of the iteration); the optimum of the model's split is " +
           detail::number(r.optimum.seconds * 1e6) + " us per iteration",
       r.result->seconds <= r.optimum.seconds * (1 + 1e-9)
           ? "the split is already the model's optimum: more devices per server or a faster link "
             "hide "
             "more (--cluster)"
           : "search the split again with more segments and keep the exact optimum when it is "
             "better",
       detail::aoe_command(model, "--job_type=4 --segments=8 --gdat_exact")});
  return rules;
}

/// prof_rule_0.json: the rules, with the job and where their figures came from.
[[nodiscard]] inline boost::json::object prof_rule_json(const std::vector<ProfRule>& rules,
                                                        std::string_view model,
                                                        std::string_view job,
                                                        const Timing& timing) {
  boost::json::array list;
  for (const auto& r : rules) {
    list.push_back(boost::json::object{{"rule_type", r.rule_type},
                                       {"target", r.target},
                                       {"op_type", r.op_type},
                                       {"time(us)", r.time_us},
                                       {"cost(us)", r.cost_us},
                                       {"evidence", r.evidence},
                                       {"suggestion", r.suggestion},
                                       {"command", r.command}});
  }
  return boost::json::object{{"generator", "OpenAOE"},
                             {"model", model},
                             {"job", job},
                             {"simulated", !timing.measured()},
                             {"timing", aoe::detail::timing_json(timing)},
                             {"rules", std::move(list)}};
}

}  // namespace aoe::report

#endif  // AOE_REPORT_PROF_RULE_HPP
