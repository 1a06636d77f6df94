// What AOE's result files of the three jobs share (OPAT, SGAT, GDAT): the file name, the
// envelope {"report_${timestamp}_${tid}": [{"basic": ...}, {"<JOB>": ...}]}, the repo_summary
// counts, and the atomic write that keeps the file valid JSON at every moment.
#ifndef AOE_JOBS_DETAIL_RESULT_FILE_HPP
#define AOE_JOBS_DETAIL_RESULT_FILE_HPP

#include "aoe/core/error.hpp"
#include "aoe/detail/write_json.hpp"
#include "aoe/io/atomic_file.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace aoe::detail {

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

#endif  // AOE_JOBS_DETAIL_RESULT_FILE_HPP
