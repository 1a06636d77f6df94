// `--report`: the profile (Chrome trace), op_summary CSV and HTML report each job writes next to
// its result file (docs/reports.md). One translation unit, so the report headers are compiled
// once for the three commands.
#ifndef AOE_TOOLS_AOE_REPORTS_HPP
#define AOE_TOOLS_AOE_REPORTS_HPP

#include "command.hpp"

#include <filesystem>

// Declared only: the command files already have them, and reports.cpp includes the rest.
namespace aoe {
struct Graph;
struct OpatReport;
struct SgatReport;
struct GdatReport;
namespace sim {
struct Soc;
}  // namespace sim
}  // namespace aoe

namespace aoe_tool {

/// Each writes the job's report files when --report=on and says where (verbosity >= 1); an
/// error names the file that cannot be written (the command decides the exit code:
/// job_finished).
[[nodiscard]] aoe::Result<void> write_opat_reports(
    const CommonOptions& common, const aoe::Graph& graph, const aoe::OpatReport& report,
    const aoe::sim::Soc& soc, const std::filesystem::path& result_file, const Io& io);
[[nodiscard]] aoe::Result<void> write_sgat_reports(const CommonOptions& common,
                                                   const aoe::SgatReport& report,
                                                   const aoe::sim::Soc& soc,
                                                   const std::filesystem::path& result_file,
                                                   const Io& io);
[[nodiscard]] aoe::Result<void> write_gdat_reports(const CommonOptions& common,
                                                   const aoe::GdatReport& report,
                                                   const std::filesystem::path& result_file,
                                                   const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_REPORTS_HPP
