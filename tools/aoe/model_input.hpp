// The model of `--model`: an OpenAOE JSON graph or an ONNX model (`--framework=5`, or decided by
// the file's content), with `--input_shape` for ONNX's dynamic dimensions (docs/cli.md).
#ifndef AOE_TOOLS_AOE_MODEL_INPUT_HPP
#define AOE_TOOLS_AOE_MODEL_INPUT_HPP

#include "command.hpp"
#include <aoe/core/error.hpp>
#include <aoe/graph/graph.hpp>
#include <aoe/graph/model_format.hpp>

#include <optional>
#include <string>

namespace aoe_tool {

/// Whether this build reads ONNX models (the aoe::onnx component was found at configure time).
[[nodiscard]] bool onnx_support() noexcept;

/// The file's bytes; a clear error when it is not a readable regular file of sane size.
[[nodiscard]] aoe::Result<std::string> read_model_file(const std::string& path);

/// The format `--framework` asks for, or the content's (`bytes`) when it is not given.
[[nodiscard]] aoe::Result<aoe::ModelFormat> model_format(const CommonOptions& common,
                                                         const std::string& bytes);

/// Reads `--model` as a graph (JSON or ONNX).
[[nodiscard]] aoe::Result<aoe::Graph> load_model(const CommonOptions& common);

/// Reads `--model` as a graph for a job command: an error is printed on `io.err` and gives
/// nothing, its exit code (model_exit_code) in `exit_code`.
[[nodiscard]] std::optional<aoe::Graph> load_model(const CommonOptions& common, const Io& io,
                                                   int& exit_code);

/// The first steps of a job on a model graph (OPAT, SGAT): its budget (job_budget: `search` the
/// policy made from --search, `preset` the level's budget), --model read as a graph (or a copy
/// of `given`, a graph the command made), and the job's `options` filled in from the flags and
/// the environment (set_common_options). An error is printed on `io.err` and gives nothing, the
/// command's exit code in `exit_code`.
template <class Search, class Budget, class JobOptions>
[[nodiscard]] std::optional<aoe::Graph> start_model_job(const aoe::Result<Search>& search,
                                                        const aoe::Result<Budget>& preset,
                                                        const CommonOptions& common,
                                                        const aoe::Environment& env, const Io& io,
                                                        JobOptions& options, int& exit_code,
                                                        const aoe::Graph* given = nullptr) {
  exit_code = exit_usage;
  const auto budget = job_budget(search, preset, common, io);
  if (!budget) return std::nullopt;
  auto graph =
      given != nullptr ? std::optional<aoe::Graph>(*given) : load_model(common, io, exit_code);
  if (graph) set_common_options(options, *budget, common, env, io);
  return graph;
}

/// Parses `bytes` (of `--model`) as a graph in `format`.
[[nodiscard]] aoe::Result<aoe::Graph> parse_model(const CommonOptions& common,
                                                  const std::string& bytes,
                                                  aoe::ModelFormat format);

/// The exit code of a model that cannot be read: 2 for a flag that does not fit the model or
/// the build (--input_shape, --framework, ONNX not built: invalid_argument), 3 for the model.
[[nodiscard]] int model_exit_code(const aoe::ErrorInfo& error) noexcept;

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_MODEL_INPUT_HPP
