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
  [[nodiscard]] bool failed() const noexcept { return !error.empty(); }
};

/// The state of a job's report; `write` turns it into AOE's file.
struct OpatReport : JobReportHead {
  std::vector<OpatOperatorReport> operators;
  /// Where every time of the report came from (the backend's timing); none: not said.
  std::optional<Timing> timing{};

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
  [[nodiscard]] std::string status_text() const {
    if (!finished || interrupted) return "tune tuning incomplete";
    return count(OpatOutcome::failed) > 0 ? "tuning failed" : "tuning successful";
  }
};

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
  return detail::job_result_json(r, complete, "OPAT", std::move(opat));
}

/// The result file's name: aoe_result_opat_${timestamp}_${pid}.json.
[[nodiscard]] inline std::string opat_result_file_name(const std::string& timestamp) {
  return detail::result_file_name("opat", timestamp);
}

}  // namespace aoe

#endif  // AOE_JOBS_OPAT_REPORT_HPP
