// AOE's subgraph-tuning result file, aoe_result_sgat_${YYYYMMDD_HHMMSSMS}_${pid}.json, in the
// schema of AOE's documentation ("Subgraph Tuning Result File", docs/aoe-facts.md#result-files):
//   {"report_${timestamp}_${tid}": [
//     {"basic": {"tuning_name", "tuning_time(s)"}},
//     {"SGAT": {"model_baseline_performance(ms)", "model_performance_improvement",
//               "model_result_performance(ms)",
//               "repo_modified_subgraphs": {"add_repo_subgraphs": [...],
//                                           "update_repo_subgraphs": [...]},
//               "repo_summary": {"repo_add_num", "repo_hit_num", "repo_reserved_num",
//                                "repo_unsatisfied_num", "repo_update_num", "total_num"}}}]}
// each modified subgraph {"performance_after_tune(ms)", "performance_before_tune(ms)",
// "performance_improvement", "repo_key"}. Rewritten atomically after every tuned subgraph, so
// it is valid JSON at every moment. While the job runs and after an interruption the file has
// no tuning time, result or improvement, and says "sgat_tuning_result": "tune tuning
// incomplete" (OPAT's wording); subgraphs that could not be timed are listed in
// "tuning_failed_subgraphs" with "sgat_tuning_result": "tuning failed". A finished, successful
// job's file has exactly the documented fields.
#ifndef AOE_JOBS_SGAT_SGAT_REPORT_HPP
#define AOE_JOBS_SGAT_SGAT_REPORT_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/space/value.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// How a subgraph's tuning ended (AOE's repo_summary categories).
using SgatOutcome = JobOutcome;

/// One subgraph of the job.
struct SgatSubgraphReport {
  std::size_t index = 0;
  std::string name;
  std::string repo_key;
  SgatOutcome outcome = SgatOutcome::unsatisfied;
  double default_ms = 0;  ///< the untuned graph's strategy
  double before_ms = 0;   ///< what tuning started from: the untuned, or the bank's, strategy
  double after_ms = 0;    ///< the strategy in use after the job
  std::size_t evaluations = 0;
  std::string strategy;  ///< the strategy in use, "cut=2, l2_optimize=1, ..."
  std::string error;     ///< why it failed
  /// The strategy in use as parameter values (on the tuned model's nodes; empty: none is
  /// applied, the subgraph failed). SGAT's checkpoint keeps it (--reload).
  std::vector<NamedValue> values;
  [[nodiscard]] bool failed() const noexcept { return outcome == SgatOutcome::failed; }
};

/// The state of a job's report; `to_json` turns it into AOE's file.
struct SgatReport : JobReportHead {
  /// Where the report's times came from (the simulator's timing model); none: not said.
  std::optional<Timing> timing{};
  double baseline_ms = 0;  ///< the whole model untuned (every subgraph that can be timed)
  std::vector<SgatSubgraphReport> subgraphs;  ///< those done so far, in model order

  [[nodiscard]] std::size_t count(SgatOutcome o) const {
    std::size_t n = 0;
    for (const auto& s : subgraphs) n += s.outcome == o ? 1 : 0;
    return n;
  }
  /// Subgraphs accounted in repo_summary (the failed ones are not).
  [[nodiscard]] std::size_t total() const { return subgraphs.size() - count(SgatOutcome::failed); }
  /// The model with the strategies in use: the baseline less what each subgraph saved.
  [[nodiscard]] double result_ms() const {
    double r = baseline_ms;
    for (const auto& s : subgraphs) {
      if (!s.failed()) r -= s.default_ms - s.after_ms;
    }
    return r;
  }
  [[nodiscard]] bool complete() const noexcept { return finished && !interrupted; }
  [[nodiscard]] std::string status_text() const {
    if (!complete()) return "tune tuning incomplete";
    return count(SgatOutcome::failed) > 0 ? "tuning failed" : "tuning successful";
  }
};

/// A percentage with two decimals, truncated as AOE prints them: the documented 5.600486 ms ->
/// 3.610442 ms is "55.11%" (55.119...), 4.58434 -> 2.573203 is "78.15%" (78.157...).
[[nodiscard]] inline std::string sgat_percent(double fraction) {
  const double hundredths = std::trunc(fraction * 10000.0 + (fraction >= 0 ? 1e-7 : -1e-7));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", hundredths / 100.0);
  return buffer;
}

/// The report as AOE's JSON.
[[nodiscard]] inline boost::json::object to_json(const SgatReport& r) {
  using boost::json::array;
  using boost::json::object;
  object sgat;
  detail::model_performance_json(
      sgat, r.baseline_ms, r.result_ms(), r.complete(),
      sgat_percent(SgatReport::improvement(r.baseline_ms, r.result_ms())));
  array added;
  array updated;
  for (const auto& s : r.subgraphs) {
    if (!detail::bank_written(s.outcome)) continue;
    object o;
    detail::tune_performance_json(o, "ms", detail::round6(s.before_ms), detail::round6(s.after_ms),
                                  sgat_percent(SgatReport::improvement(s.before_ms, s.after_ms)));
    o["repo_key"] = s.repo_key;
    (s.outcome == SgatOutcome::add ? added : updated).push_back(std::move(o));
  }
  object modified;
  modified["add_repo_subgraphs"] = std::move(added);
  modified["update_repo_subgraphs"] = std::move(updated);
  sgat["repo_modified_subgraphs"] = std::move(modified);
  sgat["repo_summary"] = detail::repo_summary<SgatOutcome>(r, r.total());
  if (r.status_text() != "tuning successful") sgat["sgat_tuning_result"] = r.status_text();
  detail::add_failed_names(sgat, "tuning_failed_subgraphs", r.subgraphs,
                           [](const auto& s) { return s.name; });
  if (r.timing) sgat["timing"] = detail::timing_json(*r.timing);
  return detail::job_result_json(r, r.complete(), "SGAT", std::move(sgat));
}

/// The result file's name: aoe_result_sgat_${timestamp}_${pid}.json.
[[nodiscard]] inline std::string sgat_result_file_name(const std::string& timestamp) {
  return detail::result_file_name("sgat", timestamp);
}

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SGAT_REPORT_HPP
