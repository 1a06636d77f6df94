// What AOE's result files of the three jobs share (OPAT, SGAT, GDAT): the file name, the
// envelope {"report_${timestamp}_${tid}": [{"basic": ...}, {"<JOB>": ...}]}, the repo_summary
// counts, and the atomic write that keeps the file valid JSON at every moment.
#ifndef AOE_JOBS_RESULT_FILE_HPP
#define AOE_JOBS_RESULT_FILE_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/write_json.hpp"
#include "aoe/vocab/timing.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <sys/time.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace aoe {

/// How a task's tuning ended, in AOE's repo_summary categories (the same for the three jobs).
enum class JobOutcome : std::uint8_t {
  hit,          ///< in the bank; used, not re-tuned
  add,          ///< new, better than the default: written
  update,       ///< in the bank, re-tuned (REPEAT_TUNE), better: written
  reserved,     ///< in the bank, re-tuned, not better: the bank's entry kept
  unsatisfied,  ///< new, nothing better than the default found
  failed,       ///< could not be tuned (OPAT, SGAT)
};

[[nodiscard]] constexpr std::string_view to_string(JobOutcome o) noexcept {
  switch (o) {
    case JobOutcome::hit: return "hit";
    case JobOutcome::add: return "add";
    case JobOutcome::update: return "update";
    case JobOutcome::reserved: return "reserved";
    case JobOutcome::unsatisfied: return "unsatisfied";
    case JobOutcome::failed: return "failed";
  }
  return "failed";
}

/// The outcome `to_string` names `text`; none for another text.
[[nodiscard]] constexpr std::optional<JobOutcome> job_outcome_from(std::string_view text) noexcept {
  for (const auto o : {JobOutcome::hit, JobOutcome::add, JobOutcome::update, JobOutcome::reserved,
                       JobOutcome::unsatisfied, JobOutcome::failed}) {
    if (to_string(o) == text) return o;
  }
  return std::nullopt;
}

/// What every job's report holds first: the "basic" part of the result file and its state.
struct JobReportHead {
  std::string tuning_name;
  std::string timestamp;  ///< YYYYMMDD_HHMMSSMS
  long tid = 0;
  double tuning_seconds = 0;
  bool finished = false;  ///< false while running and after an interruption
  bool interrupted = false;
  /// AOE's improvement: before / after - 1 (the seeds' "118.71%" for 58.781 us -> 26.876 us).
  [[nodiscard]] static double improvement(double before, double after) {
    return after > 0 ? before / after - 1.0 : 0.0;
  }
};

/// The local time as AOE stamps result files: YYYYMMDD_HHMMSSMS (MS: milliseconds, 3 digits).
[[nodiscard]] inline std::string aoe_timestamp() {
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  std::tm tm{};
  const std::time_t secs = tv.tv_sec;
  localtime_r(&secs, &tm);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d%02d%02d_%02d%02d%02d%03d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(tv.tv_usec / 1000));
  return buffer;
}

}  // namespace aoe

namespace aoe::detail {

inline std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", fraction * 100.0);
  return buffer;
}

/// Rounds to 3 decimals, as AOE prints microseconds and milliseconds.
inline double round3(double v) { return std::round(v * 1000.0) / 1000.0; }
inline double round6(double v) { return std::round(v * 1e6) / 1e6; }

/// aoe_result_<job>_${timestamp}_${pid}.json, `job` in lower case ("opat", "sgat", "gdat").
[[nodiscard]] inline std::string result_file_name(std::string_view job,
                                                  const std::string& timestamp) {
  return "aoe_result_" + std::string(job) + "_" + timestamp + "_" + std::to_string(::getpid()) +
         ".json";
}

/// {"report_${timestamp}_${tid}": [{"basic": basic}, {job_key: body}]}.
[[nodiscard]] inline boost::json::object report_envelope(const std::string& timestamp, long tid,
                                                         boost::json::object basic,
                                                         std::string_view job_key,
                                                         boost::json::object body) {
  boost::json::array entries;
  entries.push_back(boost::json::object{{"basic", std::move(basic)}});
  boost::json::object job;
  job[job_key] = std::move(body);
  entries.push_back(std::move(job));
  boost::json::object root;
  root["report_" + timestamp + "_" + std::to_string(tid)] = std::move(entries);
  return root;
}

/// The "basic" part of a job's result file: its tuning name and, once `complete`, the tuning
/// time in whole seconds.
[[nodiscard]] inline boost::json::object basic_json(const JobReportHead& r, bool complete) {
  boost::json::object basic;
  basic["tuning_name"] = r.tuning_name;
  if (complete) {
    basic["tuning_time(s)"] = static_cast<std::int64_t>(std::llround(r.tuning_seconds));
  }
  return basic;
}

/// The model's times as OPAT's and SGAT's result files give them: the baseline and, once the
/// job is `complete`, the improvement (`improvement`, as the job prints it) and the result, in
/// milliseconds rounded to 6 decimals.
inline void model_performance_json(boost::json::object& job, double baseline_ms, double result_ms,
                                   bool complete, const std::string& improvement) {
  job["model_baseline_performance(ms)"] = round6(baseline_ms);
  if (complete) {
    job["model_performance_improvement"] = improvement;
    job["model_result_performance(ms)"] = round6(result_ms);
  }
}

/// The result file of a job: its envelope (report_envelope) around the "basic" part
/// (basic_json) and the job's own part `body` under `job_key` ("OPAT", "SGAT", "GDAT").
[[nodiscard]] inline boost::json::object job_result_json(const JobReportHead& r, bool complete,
                                                         std::string_view job_key,
                                                         boost::json::object body) {
  return report_envelope(r.timestamp, r.tid, basic_json(r, complete), job_key, std::move(body));
}

/// Where the file's times came from, OpenAOE's extra field "timing" at the end of the job's part
/// (AOE's readers ignore it; docs/reports.md#simulated-or-measured): {"kind": "simulated" |
/// "measured", "source": the model and its version, or the device}.
[[nodiscard]] inline boost::json::object timing_json(const Timing& t) {
  return boost::json::object{{"kind", to_string(t.kind)}, {"source", t.source}};
}

/// Whether a task's outcome wrote the bank (add or update): the tasks a result file lists under
/// repo_modified_operators / repo_modified_subgraphs.
[[nodiscard]] constexpr bool bank_written(JobOutcome o) noexcept {
  return o == JobOutcome::add || o == JobOutcome::update;
}

/// A modified task's times in a result file: "performance_after_tune(<unit>)",
/// "performance_before_tune(<unit>)" (as the job rounds them) and "performance_improvement"
/// (as the job prints it), in that order.
inline void tune_performance_json(boost::json::object& o, std::string_view unit, double before,
                                  double after, std::string improvement) {
  const std::string u = "(" + std::string(unit) + ")";
  o["performance_after_tune" + u] = after;
  o["performance_before_tune" + u] = before;
  o["performance_improvement"] = std::move(improvement);
}

/// Sets `key` of `job` to the names (`name(task)`) of the tasks that failed, when any did
/// ("tuning_failed_operators", "tuning_failed_subgraphs").
template <class Tasks, class Name>
void add_failed_names(boost::json::object& job, std::string_view key, const Tasks& tasks,
                      Name name) {
  boost::json::array failed;
  for (const auto& t : tasks) {
    if (t.failed()) failed.push_back(boost::json::string(name(t)));
  }
  if (!failed.empty()) job[key] = std::move(failed);
}

/// "repo_summary": the number of entries added, hit, reserved, unsatisfied and updated, and the
/// total, counted by the report's `count(Outcome)`.
template <class Outcome, class Report>
[[nodiscard]] boost::json::object repo_summary(const Report& r, std::size_t total) {
  const auto n = [&](Outcome o) { return static_cast<std::int64_t>(r.count(o)); };
  boost::json::object summary;
  summary["repo_add_num"] = n(Outcome::add);
  summary["repo_hit_num"] = n(Outcome::hit);
  summary["repo_reserved_num"] = n(Outcome::reserved);
  summary["repo_unsatisfied_num"] = n(Outcome::unsatisfied);
  summary["repo_update_num"] = n(Outcome::update);
  summary["total_num"] = static_cast<std::int64_t>(total);
  return summary;
}

/// Writes a report to `file` atomically (temporary file, rename): valid JSON at every moment.
/// `durable` adds the fsyncs (the final write of a job).
[[nodiscard]] inline Result<void> write_result_file(const boost::json::object& report,
                                                    const std::filesystem::path& file,
                                                    bool durable) {
  auto text = serialize_json(report, file.string());
  if (!text) return text.error();
  return write_file_atomically(file, *text + "\n", durable);
}

}  // namespace aoe::detail

namespace aoe {

/// Writes a job's report (`to_json(report)`) to `file` atomically (temporary file, rename):
/// valid JSON at every moment. `durable` adds the fsyncs (the final write of a job).
template <class Report>
[[nodiscard]] Result<void> write_report(const Report& report, const std::filesystem::path& file,
                                        bool durable = true) {
  return detail::write_result_file(to_json(report), file, durable);
}

}  // namespace aoe

#endif  // AOE_JOBS_RESULT_FILE_HPP
