// `aoe --job_type=2 --model=net.onnx --input_shape="x:-1,3,224,224" --dynamic_batch_size="1,2,4"`:
// ATC's shape profiles (docs/cli.md#shape-profiles). Each -1 of --input_shape is filled from
// --dynamic_batch_size (the N of each input), --dynamic_image_size (its H and W) or
// --dynamic_dims (every -1, in order); each profile is one concrete model, and every profile is
// tuned in one OPAT job, as --model_path's models are: one bank, one result file with one
// report entry per profile.
#ifndef AOE_TOOLS_AOE_SHAPE_PROFILES_HPP
#define AOE_TOOLS_AOE_SHAPE_PROFILES_HPP

#include "command.hpp"
#include "opat_command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/core/error.hpp>
#include <aoe/measure/simulator/soc.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace aoe_tool {

/// One shape profile: the model with every -1 of --input_shape filled.
struct ShapeProfile {
  std::string input_shape;  ///< --input_shape with the -1 filled: "x:4,3,224,224"
  std::string suffix;       ///< of the model's name: "_batch4", "_hw416x416", "_dims1_2"
};

/// ATC's limit on the number of profiles of each of the three flags: 2 to 100 (the ATC and AOE
/// pages of each flag, docs/cli.md#shape-profiles).
inline constexpr std::size_t min_profiles = 2;
inline constexpr std::size_t max_profiles = 100;
/// AOE's range of each --dynamic_batch_size (page aoepar_16_011).
inline constexpr std::int64_t max_dynamic_batch = 2048;
/// The most -1 dimensions --dynamic_dims fills (ATC: at most 4 dimensions per profile).
inline constexpr std::size_t max_dynamic_dims = 4;

/// Adds --dynamic_batch_size, --dynamic_image_size and --dynamic_dims to `app`.
void add_shape_profile_options(CLI::App& app, CommonOptions& opt);

/// The shape profile flag given ("--dynamic_batch_size", ...; the first when several are), or
/// empty when none is.
[[nodiscard]] std::string profile_flag(const CommonOptions& common);

/// The profiles of the shape profile flag given, each filling --input_shape's -1. Errors
/// (invalid_argument) name the flag and the bad item: a size that is not a positive integer (for
/// --dynamic_batch_size one in [1, 2048]), a profile with another number of sizes than its -1
/// dimensions, a -1 where the flag puts none, a profile given twice, fewer than 2 or more than 100
/// profiles, an --input_shape without -1.
[[nodiscard]] aoe::Result<std::vector<ShapeProfile>> shape_profiles(const CommonOptions& common);

/// The shape profile flags checked against the job and the other flags (one of them at most,
/// OPAT only, with --model and --input_shape, not with --model_path, --output or several MPI
/// ranks), then the profiles themselves (shape_profiles): exit_success, or exit_usage with the
/// reason on `err` naming the flag.
[[nodiscard]] int check_profile_flags(const CommonOptions& common, long ranks, std::ostream& err);

/// Runs OPAT on every profile of --model in one job; returns an ExitCode (as --model_path's).
/// Every profile's model is read before any is tuned: one that cannot be read tunes nothing.
int run_shape_profiles_command(const CommonOptions& common, const OpatFlags& flags,
                               const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_SHAPE_PROFILES_HPP
