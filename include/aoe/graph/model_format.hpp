// Which reader a model file needs: AOE's --framework flag, or the file's first bytes.
#ifndef AOE_GRAPH_MODEL_FORMAT_HPP
#define AOE_GRAPH_MODEL_FORMAT_HPP

#include "aoe/core/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace aoe {

/// The model formats `aoe` reads: OpenAOE's JSON graph (docs/model_format.md) and ONNX.
enum class ModelFormat { json, onnx };

/// `--framework` as AOE numbers it: 5 or "onnx" is ONNX, "json" OpenAOE's graph; an empty
/// value means "decide from the file" (nullopt-like: returns `fallback`). Caffe (0), MindSpore
/// (1) and TensorFlow (3) are named in the error, with what to do instead.
[[nodiscard]] inline Result<ModelFormat> model_format_from_framework(std::string_view framework,
                                                                     ModelFormat fallback) {
  if (framework.empty()) return fallback;
  if (framework == "5" || framework == "onnx" || framework == "ONNX") return ModelFormat::onnx;
  if (framework == "json") return ModelFormat::json;
  std::string name;
  if (framework == "0") name = "Caffe";
  if (framework == "1") name = "MindSpore";
  if (framework == "3") name = "TensorFlow";
  if (!name.empty()) {
    return make_error(Errc::unsupported,
                      "--framework=" + std::string(framework) + " (" + name +
                          "): not read by this build; export the model to ONNX and pass "
                          "--framework=5 (AOE's ONNX), or use an OpenAOE JSON graph "
                          "(--framework=json)");
  }
  return make_error(Errc::invalid_argument,
                    "--framework=" + std::string(framework) +
                        ": expected 5 (ONNX), onnx or json (0 Caffe, 1 MindSpore and 3 "
                        "TensorFlow are AOE's other values, not read by this build)");
}

/// The format the content looks like: JSON text starts with '{' (after white space and a
/// UTF-8 byte-order mark); anything else is taken for an ONNX protobuf.
[[nodiscard]] inline ModelFormat sniff_model_format(std::string_view content) noexcept {
  std::size_t i = content.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < content.size() &&
         (content[i] == ' ' || content[i] == '\t' || content[i] == '\n' || content[i] == '\r')) {
    ++i;
  }
  return i < content.size() && content[i] == '{' ? ModelFormat::json : ModelFormat::onnx;
}

}  // namespace aoe

#endif  // AOE_GRAPH_MODEL_FORMAT_HPP
