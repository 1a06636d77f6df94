// `aoe --job_type=2`: operator tuning (OPAT) of a model on the simulator (docs/cli.md).
#ifndef AOE_TOOLS_AOE_OPAT_COMMAND_HPP
#define AOE_TOOLS_AOE_OPAT_COMMAND_HPP

#include "command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/measure/simulator/soc.hpp>

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
};

/// Adds OPAT's flags to `app`.
void add_opat_options(CLI::App& app, OpatFlags& flags);

/// Runs OPAT; returns an ExitCode.
int run_opat_command(const CommonOptions& common, const OpatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_OPAT_COMMAND_HPP
