// `--report`: the profile (Chrome trace), op_summary CSV and HTML report each job writes next to
// its result file (docs/reports.md). One translation unit, so the report headers are compiled
// once for the three commands.
#ifndef AOE_TOOLS_AOE_REPORTS_HPP
#define AOE_TOOLS_AOE_REPORTS_HPP

#include "command.hpp"

#include <filesystem>
#include <iosfwd>

// Declared only: the command files already have them, and reports.cpp includes the rest.
namespace aoe {
struct Graph;
struct OpatReport;
struct SgatReport;
struct GdatReport;
namespace gdat {
struct GradientProfile;
}  // namespace gdat
namespace sim {
struct Soc;
}  // namespace sim
}  // namespace aoe

namespace aoe_tool {

/// Profiling (docs/cli.md#profiling): on with --profiling_options or PROFILING_MODE=true, its
/// options from --profiling_options, else PROFILING_OPTIONS, else the defaults; sets
/// `common.profiling` and checks that the output directory can be written, before the job runs.
/// exit_success, or the exit code with the reason on `err`: exit_usage for a bad
/// --profiling_options, exit_environment for a bad PROFILING_OPTIONS, exit_bank for an output
/// directory that cannot be written. Fields OpenAOE does not read are a warning.
[[nodiscard]] int check_profiling(CommonOptions& common, const aoe::Environment& env,
                                  std::ostream& err);

/// Each writes the job's report files when --report=on, and msprof's files when profiling is
/// on, and says where (verbosity >= 1); an error names the file that cannot be written (the command
/// decides the exit code: job_finished).
[[nodiscard]] aoe::Result<void> write_opat_reports(
    const CommonOptions& common, const aoe::Graph& graph, const aoe::OpatReport& report,
    const aoe::sim::Soc& soc, const std::filesystem::path& result_file, const Io& io);
[[nodiscard]] aoe::Result<void> write_sgat_reports(
    const CommonOptions& common, const aoe::Graph& graph, const aoe::SgatReport& report,
    const aoe::sim::Soc& soc, const std::filesystem::path& result_file, const Io& io);
[[nodiscard]] aoe::Result<void> write_gdat_reports(const CommonOptions& common,
                                                   const aoe::GdatReport& report,
                                                   const aoe::gdat::GradientProfile& profile,
                                                   const std::filesystem::path& result_file,
                                                   const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_REPORTS_HPP
