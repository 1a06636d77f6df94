// The report files a job writes next to its result file (docs/reports.md):
//   ${name}_${timestamp}_trace.json       Chrome trace of the model before and after tuning
//   ${name}_${timestamp}_op_summary.csv   msprof-style op_summary, one row per operator execution
//   ${name}_${timestamp}_report.html      the self-contained HTML report
// `name` is the tuning name and `timestamp` the result file's, as the tuned model's
// ${model}_${timestamp}_tune.json. Every figure in them is simulated. Include this header in a
// tool, not in a library header: it pulls in the simulator, the jobs' reports and Boost.JSON.
#ifndef AOE_REPORT_REPORT_FILES_HPP
#define AOE_REPORT_REPORT_FILES_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/jobs/gdat_report.hpp"
#include "aoe/jobs/opat_report.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/report/job_html.hpp"
#include "aoe/report/model_profile.hpp"
#include "aoe/report/op_summary.hpp"
#include "aoe/report/trace.hpp"

#include <boost/json/serialize.hpp>

#include <filesystem>
#include <string>

namespace aoe::report {

/// The three files' paths.
struct ReportFiles {
  std::filesystem::path trace;
  std::filesystem::path op_summary;  ///< empty for GDAT (no operators)
  std::filesystem::path html;
};

[[nodiscard]] inline ReportFiles report_file_names(const std::filesystem::path& dir,
                                                   const std::string& name,
                                                   const std::string& timestamp) {
  const std::string stem = name + "_" + timestamp;
  return {dir / (stem + "_trace.json"), dir / (stem + "_op_summary.csv"),
          dir / (stem + "_report.html")};
}

/// Writes one report file atomically (readers see the old file or the new one). Reports are
/// outputs a job can rebuild: not fsynced.
[[nodiscard]] inline Result<void> write_report_file(const std::filesystem::path& file,
                                                    const std::string& text) {
  return KnowledgeBank::write_atomically(file, text, false);
}

/// OPAT's three files, next to `result_file`.
[[nodiscard]] inline Result<ReportFiles> write_opat_reports(
    const Graph& graph, const OpatReport& r, const sim::Soc& soc,
    const std::filesystem::path& result_file) {
  const auto files = report_file_names(result_file.parent_path(), r.tuning_name, r.timestamp);
  const ModelProfile profile = opat_profile(graph, r, soc);
  if (auto ok = write_report_file(files.trace,
                                  boost::json::serialize(trace_json(profile, "OPAT")) + "\n");
      !ok) {
    return ok.error();
  }
  if (auto ok = write_report_file(files.op_summary, op_summary_csv(profile, soc.split)); !ok) {
    return ok.error();
  }
  if (auto ok =
          write_report_file(files.html, opat_html(r, profile, result_file.filename().string()));
      !ok) {
    return ok.error();
  }
  return files;
}

/// SGAT's three files (the subgraphs as the stream's executions).
[[nodiscard]] inline Result<ReportFiles> write_sgat_reports(
    const SgatReport& r, const sim::Soc& soc, const std::filesystem::path& result_file) {
  const auto files = report_file_names(result_file.parent_path(), r.tuning_name, r.timestamp);
  const ModelProfile profile = sgat_profile(r, soc.name);
  if (auto ok = write_report_file(files.trace,
                                  boost::json::serialize(trace_json(profile, "SGAT")) + "\n");
      !ok) {
    return ok.error();
  }
  if (auto ok = write_report_file(files.op_summary, op_summary_csv(profile, soc.split)); !ok) {
    return ok.error();
  }
  if (auto ok =
          write_report_file(files.html, sgat_html(r, profile, result_file.filename().string()));
      !ok) {
    return ok.error();
  }
  return files;
}

/// GDAT's trace and HTML (a step has no operators: no op_summary).
[[nodiscard]] inline Result<ReportFiles> write_gdat_reports(
    const GdatReport& r, const std::filesystem::path& result_file) {
  auto files = report_file_names(result_file.parent_path(), r.tuning_name, r.timestamp);
  files.op_summary.clear();
  if (auto ok = write_report_file(files.trace, boost::json::serialize(gdat_trace_json(r)) + "\n");
      !ok) {
    return ok.error();
  }
  if (auto ok = write_report_file(files.html, gdat_html(r, result_file.filename().string())); !ok) {
    return ok.error();
  }
  return files;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_REPORT_FILES_HPP
