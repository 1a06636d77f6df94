// `--report`: see reports.hpp.
#include "reports.hpp"

#include <aoe/report/job_reports.hpp>

#include <chrono>
#include <ostream>

namespace aoe_tool {

namespace {

/// Writes the report files with `write` (a call of aoe::report's writer of the job) when
/// --report=on, and says where they are.
template <class Write>
aoe::Result<void> write_reports(const CommonOptions& common, const Io& io, Write&& write) {
  if (common.report != "on") return {};
  const auto started = std::chrono::steady_clock::now();
  const aoe::Result<aoe::report::ReportFiles> files = write();
  if (!files) return files.error();
  if (common.verbosity() >= 1) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    io.out << "aoe: report " << files->html.string() << "\n";
    io.out << "aoe: trace " << files->trace.string() << "\n";
    if (!files->op_summary.empty())
      io.out << "aoe: op_summary " << files->op_summary.string() << "\n";
    if (common.verbosity() >= 3) io.out << "aoe: reports written in " << fixed(ms, 1) << " ms\n";
  }
  return {};
}

}  // namespace

aoe::Result<void> write_opat_reports(const CommonOptions& common, const aoe::Graph& graph,
                                     const aoe::OpatReport& report, const aoe::sim::Soc& soc,
                                     const std::filesystem::path& result_file, const Io& io) {
  return write_reports(
      common, io, [&] { return aoe::report::write_opat_reports(graph, report, soc, result_file); });
}

aoe::Result<void> write_sgat_reports(const CommonOptions& common, const aoe::SgatReport& report,
                                     const aoe::sim::Soc& soc,
                                     const std::filesystem::path& result_file, const Io& io) {
  return write_reports(common, io,
                       [&] { return aoe::report::write_sgat_reports(report, soc, result_file); });
}

aoe::Result<void> write_gdat_reports(const CommonOptions& common, const aoe::GdatReport& report,
                                     const std::filesystem::path& result_file, const Io& io) {
  return write_reports(common, io,
                       [&] { return aoe::report::write_gdat_reports(report, result_file); });
}

}  // namespace aoe_tool
