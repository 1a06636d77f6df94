// AOE's operator-tuning result file, aoe_result_opat_${YYYYMMDD_HHMMSSMS}_${pid}.json, in the
// report schema of AOE's documentation (docs/aoe-facts.md#result-files):
//   {"report_${timestamp}_${tid}": [{"basic": {...}}, {"OPAT": {...}}]}
// Rewritten atomically after every operator, so it is valid JSON at every moment.
#ifndef AOE_JOBS_OPAT_REPORT_HPP
#define AOE_JOBS_OPAT_REPORT_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/chosen_knowledge.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/vocab/objective.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <sys/time.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

/// How an operator's tuning ended (AOE's repo_summary categories).
using OpatOutcome = JobOutcome;

/// One knowledge kind's tuning of one operator, as `tune_performance.<Kind>` reports it.
struct KindPerformance {
  KnowledgeKind kind = KnowledgeKind::schedule;
  double before_us = 0;  ///< the default (or, re-tuning, the bank's) policy
  double after_us = 0;   ///< the policy in use after tuning
  OpatOutcome outcome = OpatOutcome::unsatisfied;
  /// The search's best-so-far (us) after each evaluation of this job, NaN before the first
  /// valid one; empty on a hit. For reports, not in the result file.
  std::vector<double> best_so_far_us{};
  /// An objective other than plain time (OpatOptions::objective): the joules of `before_us`'s
  /// and `after_us`'s configurations, where they are known.
  std::optional<double> before_j{};
  std::optional<double> after_j{};
  /// ... and every valid evaluation of this job's search under the power cap, (us, J), and the
  /// indices among them of its time-energy front, by time. Empty on a hit.
  std::vector<std::pair<double, double>> trials_us_j{};
  std::vector<std::size_t> front{};
};

/// One fused operator of the job.
struct OpatOperatorReport {
  std::string op_name;
  std::string op_type;
  std::vector<KindPerformance> kinds;  ///< one per kind tuned (or hit)
  double default_us = 0;               ///< the operator with the default policies
  double result_us = 0;                ///< the operator with the policies in use after the job
  std::size_t evaluations = 0;         ///< candidates measured for it in this job
  std::string error;                   ///< why it failed, for a failed operator
  /// How `result_us` was settled when several kinds changed the operator (for the log): the
  /// combined choice measured, or a single kind kept because it was faster alone.
  std::string note;
  /// Per knowledge kind ("Schedule", ...): the parameters in use after the job (the tuned
  /// model's, shared with it and with the operators of the same choice). For reports, not in
  /// the result file.
  ChosenKnowledge knowledge{};
  /// An objective other than plain time: the joules of the operator with the default policies
  /// and with the policies in use, where they are known.
  std::optional<double> default_j{};
  std::optional<double> result_j{};
  [[nodiscard]] bool failed() const noexcept { return !error.empty(); }
};

/// The state of a job's report; `write` turns it into AOE's file.
struct OpatReport : JobReportHead {
  std::vector<OpatOperatorReport> operators;
  /// Where every time of the report came from (the backend's timing); none: not said.
  std::optional<Timing> timing{};
  /// What the job minimised (OpatOptions::objective); plain time writes the file of every
  /// earlier release.
  Objective objective{};

  [[nodiscard]] std::size_t count(OpatOutcome o) const {
    std::size_t n = 0;
    for (const auto& op : operators) {
      if (op.failed()) {
        n += o == OpatOutcome::failed ? 1 : 0;
        continue;
      }
      // An operator counts once, by its most significant kind: add/update over the others.
      OpatOutcome best = OpatOutcome::hit;
      bool any = false;
      for (const auto& k : op.kinds) {
        const auto rank = [](OpatOutcome x) {
          switch (x) {
            case OpatOutcome::update: return 5;
            case OpatOutcome::add: return 4;
            case OpatOutcome::reserved: return 3;
            case OpatOutcome::unsatisfied: return 2;
            case OpatOutcome::hit: return 1;
            case OpatOutcome::failed: return 0;
          }
          return 0;
        };
        if (!any || rank(k.outcome) > rank(best)) best = k.outcome;
        any = true;
      }
      if (any && best == o) ++n;
    }
    return n;
  }
  [[nodiscard]] std::size_t total() const {
    std::size_t n = 0;
    for (const auto& op : operators) n += op.failed() ? 0 : 1;
    return n;
  }
  [[nodiscard]] double baseline_ms() const {
    double s = 0;
    for (const auto& op : operators) s += op.default_us;
    return s / 1e3;
  }
  [[nodiscard]] double result_ms() const {
    double s = 0;
    for (const auto& op : operators) s += op.result_us;
    return s / 1e3;
  }
  /// The model's joules with the default policies (`before`) or those in use: the sum over
  /// the operators that did not fail; none when one of them has no energy.
  [[nodiscard]] std::optional<double> energy_j(bool before) const {
    double s = 0;
    for (const auto& op : operators) {
      if (op.failed()) continue;
      const auto& j = before ? op.default_j : op.result_j;
      if (!j) return std::nullopt;
      s += *j;
    }
    return s;
  }
  [[nodiscard]] std::string status_text() const {
    if (!finished || interrupted) return "tune tuning incomplete";
    return count(OpatOutcome::failed) > 0 ? "tuning failed" : "tuning successful";
  }
};

namespace detail {

/// Millijoules, rounded to 6 decimals.
[[nodiscard]] inline double mj(double joules) { return round6(joules * 1e3); }

/// An objective other than plain time, in the OPAT part: the objective, the model's energy
/// before and after (mJ), and for pareto each searched operator's front. A time job writes none
/// of it.
inline void opat_objective_json(boost::json::object& opat, const OpatReport& r, bool complete) {
  opat["objective"] = r.objective.label();
  if (const auto before = r.energy_j(true)) {
    opat["model_baseline_energy(mJ)"] = mj(*before);
    const auto after = r.energy_j(false);
    if (complete && after) {
      opat["model_energy_improvement"] = percent(OpatReport::improvement(*before, *after));
      opat["model_result_energy(mJ)"] = mj(*after);
    }
  }
  if (r.objective.kind != ObjectiveKind::pareto) return;
  boost::json::array fronts;
  for (const auto& op : r.operators) {
    for (const auto& k : op.kinds) {
      if (k.front.empty()) continue;
      boost::json::array points;
      for (const std::size_t i : k.front) {
        const auto& [us, j] = k.trials_us_j[i];
        points.push_back(boost::json::object{{"time(us)", round3(us)}, {"energy(mJ)", mj(j)}});
      }
      boost::json::object f;
      f["op_name"] = op.op_name;
      f["knowledge"] = std::string(to_string(k.kind));
      f["front"] = std::move(points);
      f["in_use"] = boost::json::object{
          {"time(us)", round3(k.after_us)},
          {"energy(mJ)", k.after_j ? boost::json::value(mj(*k.after_j)) : boost::json::value()}};
      fronts.push_back(std::move(f));
    }
  }
  opat["pareto_fronts"] = std::move(fronts);
}

}  // namespace detail

/// The report as AOE's JSON.
[[nodiscard]] inline boost::json::object to_json(const OpatReport& r) {
  using boost::json::array;
  using boost::json::object;
  object opat;
  const bool complete = r.finished && !r.interrupted;
  detail::model_performance_json(
      opat, r.baseline_ms(), r.result_ms(), complete,
      detail::percent(OpatReport::improvement(r.baseline_ms(), r.result_ms())));
  opat["opat_tuning_result"] = r.status_text();
  array modified;
  for (const auto& op : r.operators) {
    object perf;
    for (const auto& k : op.kinds) {
      if (!detail::bank_written(k.outcome)) continue;
      object p;
      detail::tune_performance_json(
          p, "us", detail::round3(k.before_us), detail::round3(k.after_us),
          detail::percent(OpatReport::improvement(k.before_us, k.after_us)));
      p["update_mode"] = std::string(to_string(k.outcome));
      if (k.before_j && k.after_j) {
        p["energy_after_tune(mJ)"] = detail::mj(*k.after_j);
        p["energy_before_tune(mJ)"] = detail::mj(*k.before_j);
        p["energy_improvement"] = detail::percent(OpatReport::improvement(*k.before_j, *k.after_j));
      }
      perf[std::string(to_string(k.kind))] = std::move(p);
    }
    if (perf.empty()) continue;
    object o;
    o["op_name"] = op.op_name;
    o["op_type"] = op.op_type;
    o["tune_performance"] = std::move(perf);
    modified.push_back(std::move(o));
  }
  opat["repo_modified_operators"] = std::move(modified);
  opat["repo_summary"] = detail::repo_summary<OpatOutcome>(r, r.total());
  detail::add_failed_names(opat, "tuning_failed_operators", r.operators,
                           [](const auto& op) { return op.op_name; });
  if (r.timing) opat["timing"] = detail::timing_json(*r.timing);
  if (!r.objective.plain_time()) detail::opat_objective_json(opat, r, complete);
  return detail::job_result_json(r, complete, "OPAT", std::move(opat));
}

/// The result file's name: aoe_result_opat_${timestamp}_${pid}.json.
[[nodiscard]] inline std::string opat_result_file_name(const std::string& timestamp) {
  return detail::result_file_name("opat", timestamp);
}

}  // namespace aoe

#endif  // AOE_JOBS_OPAT_REPORT_HPP
