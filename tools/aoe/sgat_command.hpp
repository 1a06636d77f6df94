// `aoe --job_type=1`: subgraph tuning (SGAT) of a model on the simulator (docs/sgat.md).
#ifndef AOE_TOOLS_AOE_SGAT_COMMAND_HPP
#define AOE_TOOLS_AOE_SGAT_COMMAND_HPP

#include "command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/measure/simulator/soc.hpp>

namespace CLI {
class App;
}

namespace aoe_tool {

/// SGAT's own flags.
struct SgatFlags {
  bool nonhomo_split = false;  ///< --Fnonhomo_split: slice counts that do not divide the batch
  bool reload = false;         ///< --reload: continue the job the work directory's checkpoint
                               ///< says was cut short (docs/sgat.md#reload)
};

/// Adds SGAT's flags to `app`.
void add_sgat_options(CLI::App& app, SgatFlags& flags);

/// SGAT's own flags given to another job (--reload): exit_usage naming the flag, else
/// exit_success.
[[nodiscard]] int check_sgat_only(const CommonOptions& common, const SgatFlags& flags,
                                  std::ostream& err);

/// Runs SGAT; returns an ExitCode.
int run_sgat_command(const CommonOptions& common, const SgatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_SGAT_COMMAND_HPP
