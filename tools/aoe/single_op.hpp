// `aoe --job_type=2 --singleop=ops.json`: operator tuning of single operators, described as ATC
// describes them (docs/cli.md#--singleop): a JSON array of {"op", "name", "input_desc",
// "output_desc", "attr"}. Each operator becomes a graph of one node, and every operator is tuned
// in one OPAT job, as --model_path's models are: one bank, one result file with one report
// entry per operator.
#ifndef AOE_TOOLS_AOE_SINGLE_OP_HPP
#define AOE_TOOLS_AOE_SINGLE_OP_HPP

#include "command.hpp"
#include "opat_command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/core/error.hpp>
#include <aoe/graph/graph.hpp>
#include <aoe/measure/simulator/soc.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace aoe_tool {

/// Adds --singleop to `app`.
void add_single_op_options(CLI::App& app, CommonOptions& opt);

/// The operators of ATC's single-operator description file `text` (`source` names it in
/// messages), each as a graph of one node named after the operator's `name` (or
/// "<index>_<op>"), its inputs "x0", "x1", ... and outputs "y0", ... Errors name the source, the
/// JSON pointer of the bad field and what was expected (`ops.json: /0/input_desc/1/shape:
/// expected an array of integers`): schema_error, or unsupported for a dynamic shape.
[[nodiscard]] aoe::Result<std::vector<aoe::Graph>> parse_single_ops(std::string_view text,
                                                                    const std::string& source);

/// --singleop checked against the job and the other flags (OPAT only, instead of --model and
/// --model_path, not with --output, --input_shape, the shape profiles or several MPI ranks):
/// exit_success, or exit_usage with the reason on `err` naming the flag.
[[nodiscard]] int check_single_op_flags(const CommonOptions& common, long ranks, std::ostream& err);

/// Runs OPAT on every operator of --singleop in one job; returns an ExitCode (as --model_path's).
/// A file that cannot be read or is malformed is exit_input, and nothing is tuned.
int run_single_op_command(const CommonOptions& common, const OpatFlags& flags,
                          const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_SINGLE_OP_HPP
