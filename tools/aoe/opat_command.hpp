// `aoe --job_type=2`: operator tuning (OPAT) of a model on the simulator (docs/cli.md).
#ifndef AOE_TOOLS_AOE_OPAT_COMMAND_HPP
#define AOE_TOOLS_AOE_OPAT_COMMAND_HPP

#include "command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/graph/graph.hpp>
#include <aoe/measure/simulator/soc.hpp>
#include <aoe/vocab/objective.hpp>

#include <cstddef>
#include <ostream>
#include <string>

namespace CLI {
class App;
}

namespace aoe_tool {

/// OPAT's own flags.
struct OpatFlags {
  std::string tune_ops_file;  ///< --tune_ops_file: JSON {"tune_ops_name": [...], ...}
  bool fop_format = false;    ///< --Fop_format: also tune the Format knowledge
  bool fop_impl = false;      ///< --Fop_impl: also tune the Impl knowledge
  bool deeper_opat = false;   ///< --Fdeeper_opat: every kind, deeper_opat_factor x the budget
  /// --objective, --pareto_pick, --power_cap
  /// (docs/energy.md#operator-tuning-for-energy-aoe---objective), read into `objective` by
  /// check_objective_flags.
  std::string objective = "time";
  std::string pareto_pick = "knee";
  double power_cap = 0;
  aoe::Objective parsed_objective{};
};

/// --objective, --pareto_pick and --power_cap into `flags.parsed_objective`: exit_usage naming
/// the flag for a name that is not one, a cap that is not a number of watts >= 0, an objective
/// other than time for another job than operator tuning or on a device that measures no
/// energy (the NPU); else exit_success.
int check_objective_flags(const CommonOptions& common, OpatFlags& flags, std::ostream& err);

/// --Fdeeper_opat's budget factor: each knowledge kind of each operator gets this many times the
/// evaluations (and the patience) of the preset or of --budget (docs/cli.md#--fdeeper_opat).
inline constexpr std::size_t deeper_opat_factor = 4;

/// Adds OPAT's flags to `app`.
void add_opat_options(CLI::App& app, OpatFlags& flags);

struct SharedResultFile;  // model_path.hpp: --model_path's one result file

/// Runs OPAT on common.model; returns an ExitCode. `shared` (--model_path): the job's report is
/// merged into that result file (model_path.hpp), which the summary then names. `given`: this
/// graph instead of reading common.model (a --singleop operator, a shape profile).
int run_opat_command(const CommonOptions& common, const OpatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io,
                     SharedResultFile* shared = nullptr, const aoe::Graph* given = nullptr);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_OPAT_COMMAND_HPP
