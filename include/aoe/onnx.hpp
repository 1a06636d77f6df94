// OpenAOE's ONNX import (optional component aoe::onnx: libonnx-dev + protobuf): read an ONNX
// model into an aoe::Graph that the jobs tune (docs/model_format.md#onnx-models).
//
//   auto graph = aoe::load_onnx("net.onnx", {.input_shapes =
//   *aoe::parse_input_shape("x:1,3,224,224")});
//
// Link aoe::onnx (CMake) or the `aoe_onnx_dep` dependency (Meson). Not part of <aoe.hpp>.
#ifndef AOE_ONNX_HPP
#define AOE_ONNX_HPP

#include "aoe/graph/input_shape.hpp"
#include "aoe/graph/model_format.hpp"
#include "aoe/graph/onnx/onnx_loader.hpp"

#endif  // AOE_ONNX_HPP
