// `--report`: see reports.hpp.
#include "reports.hpp"

#include <aoe/report/job_reports.hpp>

#include <chrono>
#include <ostream>

namespace aoe_tool {

namespace {

int finish(const CommonOptions& common, const aoe::Result<aoe::report::ReportFiles>& files,
           std::chrono::steady_clock::time_point started, const Io& io) {
  if (!files) {
    io.err << "aoe: --report: " << files.error().message << "\n";
    return exit_bank;
  }
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
  return exit_success;
}

}  // namespace

int write_opat_reports(const CommonOptions& common, const aoe::Graph& graph,
                       const aoe::OpatReport& report, const aoe::sim::Soc& soc,
                       const std::filesystem::path& result_file, const Io& io) {
  if (common.report != "on") return exit_success;
  const auto started = std::chrono::steady_clock::now();
  return finish(common, aoe::report::write_opat_reports(graph, report, soc, result_file), started,
                io);
}

int write_sgat_reports(const CommonOptions& common, const aoe::SgatReport& report,
                       const aoe::sim::Soc& soc, const std::filesystem::path& result_file,
                       const Io& io) {
  if (common.report != "on") return exit_success;
  const auto started = std::chrono::steady_clock::now();
  return finish(common, aoe::report::write_sgat_reports(report, soc, result_file), started, io);
}

int write_gdat_reports(const CommonOptions& common, const aoe::GdatReport& report,
                       const std::filesystem::path& result_file, const Io& io) {
  if (common.report != "on") return exit_success;
  const auto started = std::chrono::steady_clock::now();
  return finish(common, aoe::report::write_gdat_reports(report, result_file), started, io);
}

}  // namespace aoe_tool
