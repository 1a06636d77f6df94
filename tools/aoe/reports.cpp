// `--report` and profiling: see reports.hpp.
#include "reports.hpp"

#include <aoe/report/job_reports.hpp>
#include <aoe/report/profiling_files.hpp>
#include <aoe/report/profiling_options.hpp>

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

/// The options of a profiling that check_profiling accepted.
aoe::report::ProfilingRun profiling_run(const CommonOptions& common) {
  const auto& p = *common.profiling;
  auto options = aoe::report::parse_profiling_options(p.text, p.source);
  return {.options = options ? std::move(*options) : aoe::report::ProfilingOptions{},
          .output = p.output,
          .ids = {.device = p.device},
          .model_argument = common.model};
}

/// Writes msprof's files with `write(run)` when profiling is on, and says where.
template <class Write>
aoe::Result<void> write_profiling(const CommonOptions& common, const Io& io, Write&& write) {
  if (!common.profiling) return {};
  const auto files = write(profiling_run(common));
  if (!files) return files.error();
  if (common.verbosity() >= 1) {
    for (const auto& f : *files) io.out << "aoe: profiling " << f.string() << "\n";
  }
  return {};
}

/// Both kinds of files: the reports, then msprof's.
template <class Reports, class Profiling>
aoe::Result<void> write_all(const CommonOptions& common, const Io& io, Reports&& reports,
                            Profiling&& profiling) {
  if (auto ok = write_reports(common, io, reports); !ok) return ok;
  return write_profiling(common, io, profiling);
}

}  // namespace

int check_profiling(CommonOptions& common, const aoe::Environment& env, std::ostream& err) {
  if (!common.profiling_options && !env.profiling_mode) return exit_success;
  const bool flag = common.profiling_options.has_value();
  CommonOptions::Profiling p{
      .text = flag ? *common.profiling_options : env.profiling_options.value_or(""),
      .source = flag ? "--profiling_options" : "environment variable PROFILING_OPTIONS",
      .output = {},
      .device = env.ascend_device_id};
  auto options = aoe::report::parse_profiling_options(p.text, p.source);
  if (!options) {
    err << "aoe: " << console_text(options.error().message, true) << "\n";
    return flag ? exit_usage : exit_environment;
  }
  if (common.verbosity() >= 1) {
    for (const auto& field : options->ignored) {
      err << "aoe: warning: " << p.source << ": /" << console_text(field)
          << ": not read by OpenAOE's simulated profiling (ignored)\n";
    }
  }
  p.output = options->output.empty()         ? env.work_path()
             : options->output.is_absolute() ? options->output
                                             : env.working_directory / options->output;
  if (auto ok = aoe::report::check_profiling_output(p.output); !ok) {
    err << "aoe: " << p.source << ": /output: " << console_text(ok.error().message, true) << "\n";
    return exit_bank;
  }
  common.profiling = std::move(p);
  return exit_success;
}

aoe::Result<void> write_opat_reports(const CommonOptions& common, const aoe::Graph& graph,
                                     const aoe::OpatReport& report, const aoe::sim::Soc& soc,
                                     const std::filesystem::path& result_file, const Io& io) {
  return write_all(
      common, io, [&] { return aoe::report::write_opat_reports(graph, report, soc, result_file); },
      [&](const aoe::report::ProfilingRun& run) {
        return aoe::report::write_opat_profiling(graph, report, soc, run);
      });
}

aoe::Result<void> write_sgat_reports(const CommonOptions& common, const aoe::Graph& graph,
                                     const aoe::SgatReport& report, const aoe::sim::Soc& soc,
                                     const std::filesystem::path& result_file, const Io& io) {
  return write_all(
      common, io, [&] { return aoe::report::write_sgat_reports(report, soc, result_file); },
      [&](const aoe::report::ProfilingRun& run) {
        return aoe::report::write_sgat_profiling(graph, report, soc, run);
      });
}

aoe::Result<void> write_gdat_reports(const CommonOptions& common, const aoe::GdatReport& report,
                                     const aoe::gdat::GradientProfile& profile,
                                     const std::filesystem::path& result_file, const Io& io) {
  return write_all(
      common, io, [&] { return aoe::report::write_gdat_reports(report, result_file); },
      [&](const aoe::report::ProfilingRun& run) {
        return aoe::report::write_gdat_profiling(report, profile, run);
      });
}

}  // namespace aoe_tool
