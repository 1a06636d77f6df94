// `aoe --model_path=DIR --job_type=2`: operator tuning of every model of a directory in one job
// (docs/cli.md#--model_path): the models one after another, one knowledge bank (what one model
// tuned is a hit for the next), one result file holding one report entry per model.
#ifndef AOE_TOOLS_AOE_MODEL_PATH_HPP
#define AOE_TOOLS_AOE_MODEL_PATH_HPP

#include "command.hpp"
#include "opat_command.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/core/error.hpp>
#include <aoe/measure/simulator/soc.hpp>

#include <boost/json/object.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace aoe_tool {

/// The job's one result file under --model_path: the first model's, into which each later
/// model's report entry ("report_${timestamp}_${tid}") is merged (that model's own file is then
/// removed).
struct SharedResultFile {
  std::filesystem::path file;   ///< empty until the first model has finished
  boost::json::object reports;  ///< every entry so far, in the order the models ran
  std::string last_timestamp;   ///< of the last model's report: the next starts after it
};

/// Adds the report of `own` (a model's result file) to `shared` and rewrites the shared file
/// (durably); `own` is removed unless it is the shared file. Errors name the file.
[[nodiscard]] aoe::Result<void> merge_result_file(const std::filesystem::path& own,
                                                  SharedResultFile& shared);

/// The models of `dir`: its regular files named *.json or *.onnx, sorted by name. Errors
/// (not_found, io_error) name the directory: it does not exist, is not a directory, or holds no
/// model.
[[nodiscard]] aoe::Result<std::vector<std::filesystem::path>> models_of(
    const std::filesystem::path& dir);

/// Runs `count` OPAT jobs one after another as one job (--model_path's models, --singleop's
/// operators, the shape profiles): `run_one(i, shared)` runs the i-th (run_opat_command with
/// `shared`), each starting at least a millisecond after the one before. Returns an ExitCode:
/// the first that is not exit_success or exit_ops_failed ends the job with it; otherwise
/// exit_ops_failed when some had failed operators.
int run_in_one_job(std::size_t count,
                   const std::function<int(std::size_t, SharedResultFile&)>& run_one);

/// Runs OPAT on every model of common.model_path (run_in_one_job); returns an ExitCode.
int run_model_path_command(const CommonOptions& common, const OpatFlags& flags,
                           const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io);

/// Operator tuning as the flags ask: --singleop's operators, the shape profiles of --model,
/// --model_path's models, or --model; returns an ExitCode.
int run_opat_job(const CommonOptions& common, const OpatFlags& flags, const aoe::Environment& env,
                 const aoe::sim::Soc& soc, const Io& io);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_MODEL_PATH_HPP
