// The model of `--model` (docs/cli.md, docs/model_format.md).
#include "model_input.hpp"

#include <aoe/graph/input_shape.hpp>
#include <aoe/graph/loader.hpp>
#include <aoe/io/read_input.hpp>
#if defined(AOE_WITH_ONNX)
#include <aoe/graph/onnx/onnx_loader.hpp>
#endif

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace aoe_tool {

bool onnx_support() noexcept {
#if defined(AOE_WITH_ONNX)
  return true;
#else
  return false;
#endif
}

aoe::Result<std::string> read_model_file(const std::string& path) {
  return aoe::detail::read_input_file(path,
                                      "a model file: ONNX or a JSON graph, docs/model_format.md");
}

aoe::Result<aoe::ModelFormat> model_format(const CommonOptions& common, const std::string& bytes) {
  // Errors here are about the flags or the build, not the model: invalid_argument (exit 2).
  auto format = aoe::model_format_from_framework(common.framework, aoe::sniff_model_format(bytes));
  if (!format) return aoe::make_error(aoe::Errc::invalid_argument, format.error().message);
  if (*format == aoe::ModelFormat::onnx && !onnx_support()) {
    return aoe::make_error(aoe::Errc::invalid_argument,
                           common.model +
                               ": an ONNX model, and this build has no ONNX import: "
                               "install libonnx-dev libprotobuf-dev protobuf-compiler "
                               "(Debian) and rebuild (docs/building.md)");
  }
  if (*format == aoe::ModelFormat::json && !common.input_shape.empty()) {
    return aoe::make_error(aoe::Errc::invalid_argument,
                           "--input_shape applies to ONNX models; the JSON graph " + common.model +
                               " has static shapes already");
  }
  return format;
}

aoe::Result<aoe::Graph> parse_model(const CommonOptions& common, const std::string& bytes,
                                    aoe::ModelFormat format) {
  if (format == aoe::ModelFormat::json) return aoe::parse_graph(bytes, common.model);
#if defined(AOE_WITH_ONNX)
  aoe::OnnxOptions options;
  if (!common.input_shape.empty()) {
    auto shapes = aoe::parse_input_shape(common.input_shape);
    if (!shapes) return shapes.error();
    options.input_shapes = std::move(*shapes);
  }
  options.name = std::filesystem::path(common.model).stem().string();
  return aoe::parse_onnx(bytes, common.model, options);
#else
  return aoe::make_error(aoe::Errc::unsupported, common.model + ": this build has no ONNX import");
#endif
}

aoe::Result<aoe::Graph> load_model(const CommonOptions& common) {
  auto bytes = read_model_file(common.model);
  if (!bytes) return bytes.error();
  auto format = model_format(common, *bytes);
  if (!format) return format.error();
  return parse_model(common, *bytes, *format);
}

std::optional<aoe::Graph> load_model(const CommonOptions& common, const Io& io, int& exit_code) {
  auto graph = load_model(common);
  if (graph) return std::move(*graph);
  io.err << "aoe: " << console_text(graph.error().message, true) << "\n";
  exit_code = model_exit_code(graph.error());
  return std::nullopt;
}

int model_exit_code(const aoe::ErrorInfo& error) noexcept {
  return error.code == aoe::make_error_code(aoe::Errc::invalid_argument) ? exit_usage : exit_input;
}

}  // namespace aoe_tool
