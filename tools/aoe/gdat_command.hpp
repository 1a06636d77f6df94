// `aoe --job_type=4`: gradient tuning (GDAT) of a training model's all-reduce split on a
// modelled cluster (docs/gdat.md).
#ifndef AOE_TOOLS_AOE_GDAT_COMMAND_HPP
#define AOE_TOOLS_AOE_GDAT_COMMAND_HPP

#include "command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/measure/simulator/soc.hpp>

#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace aoe_tool {

/// The flags of one level of the cluster's links: --intra_bandwidth and --intra_latency (inside a
/// server) or --inter_bandwidth and --inter_latency (between servers).
struct LinkFlags {
  std::optional<double> bandwidth;  ///< GB/s per device
  std::optional<double> latency;    ///< us per message
};

/// GDAT's own flags. The cluster flags override the --cluster file's values (or the defaults).
struct GdatFlags {
  std::string gradient_profile;  ///< --gradient_profile: the input instead of --model's graph
  std::string cluster;           ///< --cluster: a cluster JSON file
  std::optional<int> devices;
  std::optional<int> devices_per_server;
  std::optional<std::string> topology;       ///< "ring" or "two_level"
  LinkFlags intra;                           ///< inside a server
  LinkFlags inter;                           ///< between servers
  std::optional<double> allreduce_overhead;  ///< us
  int segments = 8;                          ///< --segments: the most segments, 1 to 8
  bool exact = false;  ///< --gdat_exact: keep the dynamic programme's optimum when it is better
};

/// Adds GDAT's flags to `app`.
void add_gdat_options(CLI::App& app, GdatFlags& flags);

/// Runs GDAT; returns an ExitCode.
int run_gdat_command(const CommonOptions& common, const GdatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_GDAT_COMMAND_HPP
