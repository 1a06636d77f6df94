// Private: one ONNX node onto the Ascend operator types of aoe::Graph (the table in
// docs/model_format.md#onnx-models). Shapes come from shape inference; inputs that are only
// parameters of the operator (a Reshape target, Resize scales, Clip bounds, Slice starts ...)
// become attributes or are dropped, so that a node's inputs are the tensors it reads.
#ifndef AOE_GRAPH_ONNX_DETAIL_OPERATOR_MAPPING_HPP
#define AOE_GRAPH_ONNX_DETAIL_OPERATOR_MAPPING_HPP

#include "aoe/graph/graph.hpp"
#include "aoe/graph/onnx/detail/constant_folding.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::onnx_import::detail {

/// What the mapping knows of the model: static tensor descriptions, constant values, the
/// constant tensors (weights, folded shape arithmetic) and the default-domain opset.
struct MappingContext {
  std::map<std::string, TensorDesc> descs;
  std::map<std::string, ConstTensor> values;
  std::set<std::string> constants;
  std::int64_t opset = 17;
};

/// Elementwise ONNX operators and their Ascend names.
[[nodiscard]] inline std::optional<std::string_view> elementwise_name(std::string_view op) {
  static constexpr std::pair<std::string_view, std::string_view> table[] = {
      {"Add", "Add"},
      {"Sub", "Sub"},
      {"Mul", "Mul"},
      {"Div", "RealDiv"},
      {"Pow", "Pow"},
      {"Sqrt", "Sqrt"},
      {"Exp", "Exp"},
      {"Log", "Log"},
      {"Abs", "Abs"},
      {"Neg", "Neg"},
      {"Reciprocal", "Reciprocal"},
      {"Max", "Maximum"},
      {"Min", "Minimum"},
      {"Sum", "AddN"},
      {"Relu", "Relu"},
      {"LeakyRelu", "LeakyRelu"},
      {"PRelu", "PRelu"},
      {"Elu", "Elu"},
      {"Selu", "Selu"},
      {"Sigmoid", "Sigmoid"},
      {"HardSigmoid", "HardSigmoid"},
      {"HardSwish", "HardSwish"},
      {"Tanh", "Tanh"},
      {"Erf", "Erf"},
      {"Softplus", "Softplus"},
      {"Softsign", "Softsign"},
      {"Floor", "Floor"},
      {"Ceil", "Ceil"},
      {"Round", "Round"},
      {"Sign", "Sign"},
      {"Sin", "Sin"},
      {"Cos", "Cos"},
      {"Not", "LogicalNot"},
      {"And", "LogicalAnd"},
      {"Or", "LogicalOr"},
      {"Equal", "Equal"},
      {"Less", "Less"},
      {"Greater", "Greater"},
      {"LessOrEqual", "LessEqual"},
      {"GreaterOrEqual", "GreaterEqual"},
      {"Where", "Select"},
      {"Mish", "Mish"},
      {"Cast", "Cast"},
      {"Gelu", "Gelu"},
  };
  for (const auto& [onnx_name, ascend] : table) {
    if (onnx_name == op) return ascend;
  }
  return std::nullopt;
}

/// Ascend names of the data-movement operators (priced as memory-bound copies).
[[nodiscard]] inline std::optional<std::string_view> data_movement_name(std::string_view op) {
  static constexpr std::pair<std::string_view, std::string_view> table[] = {
      {"Concat", "ConcatD"},
      {"Split", "SplitD"},
      {"Slice", "StridedSliceD"},
      {"Transpose", "TransposeD"},
      {"Gather", "GatherV2"},
      {"Pad", "PadD"},
      {"Tile", "TileD"},
      {"Expand", "BroadcastToD"},
      {"DepthToSpace", "DepthToSpace"},
      {"SpaceToDepth", "SpaceToDepth"},
  };
  for (const auto& [onnx_name, ascend] : table) {
    if (onnx_name == op) return ascend;
  }
  return std::nullopt;
}

/// Which inputs of an ONNX operator are tensors it reads (the rest are parameters).
[[nodiscard]] inline std::vector<int> data_inputs(std::string_view op, int count) {
  const auto first = [&](int k) {
    std::vector<int> v;
    for (int i = 0; i < std::min(k, count); ++i) v.push_back(i);
    return v;
  };
  if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "Slice" || op == "Pad" ||
      op == "Resize" || op == "Upsample" || op == "Unsqueeze" || op == "Squeeze" || op == "Clip" ||
      op == "Split" || op == "Dropout" || op == "TopK" || op == "CumSum" ||
      op.starts_with("Reduce")) {
    return first(1);
  }
  std::vector<int> all;
  for (int i = 0; i < count; ++i) all.push_back(i);
  return all;
}

/// Pads [top, bottom, left, right] of a 2-D window so that the floor formula of the simulator,
/// (in + pad_begin + pad_end - effective_kernel) / stride + 1, gives the inferred output
/// (auto_pad and ceil_mode become explicit end padding). std::nullopt when the window is not 2-D
/// or a pad falls outside [0, 2^31).
[[nodiscard]] inline std::optional<std::vector<std::int64_t>> window_pads(
    const onnx::NodeProto& n, const std::vector<std::int64_t>& in_hw,
    const std::vector<std::int64_t>& out_hw, const std::vector<std::int64_t>& kernel,
    const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& dilations) {
  auto onnx_pads = ints_attribute(n, "pads").value_or(std::vector<std::int64_t>(4, 0));
  if (onnx_pads.size() == 2) onnx_pads = {0, onnx_pads[0], 0, onnx_pads[1]};  // 1-D: height 1
  const std::string auto_pad = string_attribute(n, "auto_pad", "NOTSET");
  if (kernel.size() != 2 || strides.size() != 2 || dilations.size() != 2) return std::nullopt;
  // 128-bit arithmetic: the attributes and shapes are the file's, any int64; a pad outside
  // [0, 2^31) is not a window the simulator prices.
  __extension__ using Wide = __int128;
  constexpr Wide limit = Wide{1} << 31;
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1) return std::nullopt;
    const Wide eff = Wide{kernel[i] - 1} * dilations[i] + 1;
    Wide begin = onnx_pads.size() == 4 ? onnx_pads[i] : 0;
    Wide end = onnx_pads.size() == 4 ? onnx_pads[i + 2] : 0;
    const Wide span = Wide{out_hw[i] - 1} * strides[i] + eff;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const Wide total = std::max<Wide>(0, span - in_hw[i]);
      begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else if (auto_pad == "VALID") {
      begin = end = 0;
    }
    const Wide need = span - (Wide{in_hw[i]} + begin + end);
    if (need > 0) end += need;
    if (begin < 0 || end < 0 || begin >= limit || end >= limit) return std::nullopt;
    out.push_back(static_cast<std::int64_t>(begin));
    out.push_back(static_cast<std::int64_t>(end));
  }
  return out;
}

/// The mapped node, or an empty type when the node maps to nothing the simulator knows (the
/// ONNX op type is kept: the job lists it among the operators it could not price).
struct Mapped {
  std::string type;
  std::vector<int> inputs;  ///< indices of the ONNX inputs kept, in order
  std::map<std::string, Attribute> attributes;
  std::vector<std::optional<std::vector<std::int64_t>>> input_shapes;  ///< overrides (rank)
  std::string error;  ///< why the node cannot be mapped (the loader's schema error), else empty
};

inline constexpr std::string_view bad_window =
    "kernel_shape, strides, dilations or pads do not give a 2-D window with pads in [0, 2^31)";

[[nodiscard]] inline Mapped with_error(Mapped m, std::string_view error) {
  m.error = error;
  return m;
}

/// Maps `n` (whose inputs/outputs all have static descriptions in `ctx`).
[[nodiscard]] inline Mapped map_node(const onnx::NodeProto& n, const MappingContext& ctx) {
  const std::string& op = n.op_type();
  Mapped m;
  m.inputs = data_inputs(op, n.input_size());
  const auto shape_of = [&](int i) -> std::vector<std::int64_t> {
    if (i >= n.input_size()) return {};
    const auto it = ctx.descs.find(n.input(i));
    return it == ctx.descs.end() ? std::vector<std::int64_t>{} : it->second.shape;
  };
  const auto out_shape = [&](int i) -> std::vector<std::int64_t> {
    if (i >= n.output_size()) return {};
    const auto it = ctx.descs.find(n.output(i));
    return it == ctx.descs.end() ? std::vector<std::int64_t>{} : it->second.shape;
  };
  const auto value_of = [&](int i) -> const ConstTensor* {
    if (i >= n.input_size()) return nullptr;
    const auto it = ctx.values.find(n.input(i));
    return it == ctx.values.end() ? nullptr : &it->second;
  };
  const auto rank = static_cast<std::int64_t>(shape_of(0).size());
  // An axis of the first input, counted from the end when negative; nullopt outside [-rank, rank).
  const auto normal_axis = [&](std::int64_t a) -> std::optional<std::int64_t> {
    if (a < -rank || a >= rank) return std::nullopt;
    return a < 0 ? a + rank : a;
  };
  const auto bad_axis = [&](std::string_view name, std::int64_t a) {
    return with_error(std::move(m), std::string(name) + " " + std::to_string(a) +
                                        " is outside [-rank, rank) of the rank-" +
                                        std::to_string(rank) + " input");
  };
  // The axes from attribute `name` or else from constant input `input`, normalised; nullopt (and
  // `*wrong` set) when one is out of range.
  const auto axis_list = [&](const char* name, int input,
                             std::int64_t* wrong) -> std::optional<std::vector<std::int64_t>> {
    std::vector<std::int64_t> axes;
    if (auto a = ints_attribute(n, name)) {
      axes = *a;
    } else if (const auto* v = value_of(input)) {
      for (std::size_t i = 0; i < v->size(); ++i) axes.push_back(v->integer(i));
    }
    for (auto& a : axes) {
      const auto normal = normal_axis(a);
      if (!normal) {
        *wrong = a;
        return std::nullopt;
      }
      a = *normal;
    }
    return axes;
  };

  if (const auto e = elementwise_name(op)) {
    m.type = std::string(*e);
    if (op == "LeakyRelu") m.attributes["negative_slope"] = float_attribute(n, "alpha", 0.01);
    if (op == "HardSigmoid") {
      m.attributes["alpha"] = float_attribute(n, "alpha", 0.2);
      m.attributes["beta"] = float_attribute(n, "beta", 0.5);
    }
    if (op == "Cast") m.attributes["dst_type"] = int_attribute(n, "to", 1);
    return m;
  }
  if (op == "Clip") {
    double lo = -std::numeric_limits<double>::infinity();
    double hi = std::numeric_limits<double>::infinity();
    bool known = true;
    if (ctx.opset < 11) {
      lo = float_attribute(n, "min", lo);
      hi = float_attribute(n, "max", hi);
    } else {
      for (int i = 1; i <= 2 && i < n.input_size(); ++i) {
        if (n.input(i).empty()) continue;
        const auto* v = value_of(i);
        if (v == nullptr || v->size() != 1) {
          known = false;
          continue;
        }
        (i == 1 ? lo : hi) = v->real(0);
      }
    }
    if (known && lo == 0 && hi == 6) {
      m.type = "Relu6";
    } else if (known && lo == 0 && hi == std::numeric_limits<double>::infinity()) {
      m.type = "Relu";
    } else {
      m.type = "ClipByValue";
    }
    return m;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
      op == "Identity" || op == "Dropout") {
    m.type = op == "Dropout" ? "Identity" : op;
    return m;
  }
  if (op == "Conv" || op == "ConvTranspose") {
    const auto x = shape_of(0);
    const auto w = shape_of(1);
    const auto y = out_shape(0);
    const std::int64_t group = int_attribute(n, "group", 1);
    if (x.size() != 4 && x.size() != 3) {
      m.type = op == "Conv" ? "Conv3D" : "Conv3DTranspose";  // the simulator prices 2-D only
      return m;
    }
    if (w.size() != x.size() || y.size() != x.size()) {
      // The weight's shape is unknown (a constant of a type aoe does not read) or disagrees.
      const std::string weight = n.input_size() > 1 ? n.input(1) : std::string();
      m.error =
          w.empty()
              ? "the shape of weight '" + weight + "' is unknown (a tensor type aoe does not read?)"
              : "input rank " + std::to_string(x.size()) + ", weight '" + weight + "' rank " +
                    std::to_string(w.size()) + ", output rank " + std::to_string(y.size()) +
                    " (a convolution needs the same rank for all three)";
      return m;
    }
    // A 1-D convolution is a 2-D one of height 1.
    auto x4 = x, w4 = w, y4 = y;
    if (x.size() == 3) {
      x4.insert(x4.begin() + 2, 1);
      w4.insert(w4.begin() + 2, 1);
      y4.insert(y4.begin() + 2, 1);
      m.input_shapes = {x4, w4};
    }
    // A 1-D window attribute gets height 1; a missing one its 2-D default.
    const auto window = [&](const char* name, std::vector<std::int64_t> fallback) {
      auto v = ints_attribute(n, name);
      if (!v) return fallback;
      if (x.size() == 3) v->insert(v->begin(), 1);
      return *v;
    };
    const auto kernel = window("kernel_shape", {w4[2], w4[3]});
    const auto strides = window("strides", {1, 1});
    const auto dilations = window("dilations", {1, 1});
    m.attributes["strides"] = strides;
    m.attributes["dilations"] = dilations;
    m.attributes["data_format"] = std::string("NCHW");
    if (op == "ConvTranspose") {
      m.type = "Conv2DTranspose";
      m.attributes["groups"] = group;
      // The padding of the equivalent convolution is not needed: the output comes from shape
      // inference.
      return m;
    }
    const auto pads = window_pads(n, {x4[2], x4[3]}, {y4[2], y4[3]}, kernel, strides, dilations);
    if (!pads) return with_error(std::move(m), bad_window);
    m.attributes["pads"] = *pads;
    if (group > 1 && group == x4[1] && w4[1] == 1) {
      m.type = "DepthwiseConv2D";
    } else {
      m.type = "Conv2D";
      m.attributes["groups"] = group;
    }
    return m;
  }
  if (op == "MatMul" || op == "Gemm") {
    auto a = shape_of(0);
    auto b = shape_of(1);
    if (op == "MatMul") {
      if (a.size() == 1) a.insert(a.begin(), 1);  // a vector times a matrix: a row
      if (b.size() == 1) b.push_back(1);          // a matrix times a vector: a column
      m.input_shapes = {a, b};
      m.type = a.size() == 2 && b.size() == 2 ? "MatMul" : "BatchMatMul";
      return m;
    }
    m.type = "MatMulV2";
    m.attributes["transpose_x1"] = int_attribute(n, "transA", 0) != 0;
    m.attributes["transpose_x2"] = int_attribute(n, "transB", 0) != 0;
    return m;
  }
  if (op == "BatchNormalization") {
    m.type = "BatchNorm";
    m.attributes["epsilon"] = float_attribute(n, "epsilon", 1e-5);
    m.attributes["is_training"] = false;
    return m;
  }
  if (op == "InstanceNormalization") {
    m.type = "InstanceNorm";
    return m;
  }
  if (op == "MaxPool" || op == "AveragePool") {
    const auto x = shape_of(0);
    const auto y = out_shape(0);
    m.type = op == "MaxPool" ? "MaxPool" : "AvgPool";
    if (x.size() != 4 || y.size() != 4) return m;  // the simulator rejects other ranks
    const auto kernel = ints_attribute(n, "kernel_shape").value_or(std::vector<std::int64_t>{1, 1});
    const auto strides = ints_attribute(n, "strides").value_or(std::vector<std::int64_t>{1, 1});
    const auto dilations = ints_attribute(n, "dilations").value_or(std::vector<std::int64_t>{1, 1});
    m.attributes["ksize"] = kernel;
    m.attributes["strides"] = strides;
    const auto pads = window_pads(n, {x[2], x[3]}, {y[2], y[3]}, kernel, strides, dilations);
    if (!pads) return with_error(std::move(m), bad_window);
    m.attributes["pads"] = *pads;
    m.attributes["data_format"] = std::string("NCHW");
    m.inputs = {0};  // MaxPool's optional Indices output is not an input
    return m;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    m.type = op == "GlobalAveragePool" ? "ReduceMean" : "ReduceMax";
    std::vector<std::int64_t> axes;
    for (std::int64_t a = 2; a < rank; ++a) axes.push_back(a);
    m.attributes["axes"] = axes;
    m.attributes["keep_dims"] = true;
    return m;
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    m.type = op == "Softmax" ? "SoftmaxV2" : "LogSoftmaxV2";
    const std::int64_t def = ctx.opset >= 13 ? -1 : 1;
    const std::int64_t given = int_attribute(n, "axis", def);
    const auto axis = normal_axis(given);
    if (!axis) return bad_axis("axis", given);
    std::vector<std::int64_t> axes;
    if (ctx.opset >= 13) {
      axes = {*axis};
    } else {
      for (std::int64_t a = *axis; a < rank; ++a) axes.push_back(a);  // coerced to 2-D
    }
    m.attributes["axes"] = axes;
    return m;
  }
  if (op.starts_with("Reduce")) {
    m.type = op;
    std::int64_t wrong = 0;
    auto listed = axis_list("axes", 1, &wrong);
    if (!listed) return bad_axis("axes entry", wrong);
    auto axes = std::move(*listed);
    if (axes.empty() && int_attribute(n, "noop_with_empty_axes", 0) == 0) {
      for (std::int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    m.attributes["axes"] = axes;
    m.attributes["keep_dims"] = int_attribute(n, "keepdims", 1) != 0;
    return m;
  }
  if (op == "ArgMax" || op == "ArgMin") {
    m.type = op == "ArgMax" ? "ArgMaxV2" : "ArgMinV2";
    const std::int64_t given = int_attribute(n, "axis", 0);
    const auto axis = normal_axis(given);
    if (!axis) return bad_axis("axis", given);
    m.attributes["axes"] = std::vector<std::int64_t>{*axis};
    return m;
  }
  if (op == "LayerNormalization") {
    m.type = "LayerNorm";
    m.attributes["begin_norm_axis"] = int_attribute(n, "axis", -1);
    m.attributes["epsilon"] = float_attribute(n, "epsilon", 1e-5);
    return m;
  }
  if (op == "Resize" || op == "Upsample") {
    const std::string mode = string_attribute(n, "mode", "nearest");
    m.type = mode == "linear" || mode == "bilinear" ? "ResizeBilinearV2"
             : mode == "cubic"                      ? "ResizeBicubic"
                                                    : "ResizeNearestNeighborV2";
    m.attributes["mode"] = mode;
    return m;
  }
  if (const auto d = data_movement_name(op)) {
    m.type = std::string(*d);
    if (op == "Concat") m.attributes["concat_dim"] = int_attribute(n, "axis", 0);
    if (op == "Gather") m.attributes["axis"] = int_attribute(n, "axis", 0);
    if (op == "Transpose") {
      if (auto p = ints_attribute(n, "perm")) m.attributes["perm"] = *p;
    }
    if (op == "Split") m.attributes["split_dim"] = int_attribute(n, "axis", 0);
    return m;
  }
  // Anything else of the default domain keeps its ONNX type: the simulator has no model for it,
  // and the job reports it among the operators it could not tune.
  m.type = op;
  return m;
}

}  // namespace aoe::onnx_import::detail

#endif  // AOE_GRAPH_ONNX_DETAIL_OPERATOR_MAPPING_HPP
