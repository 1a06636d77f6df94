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

/// The node being mapped, what the context knows of its tensors and the lookups its mapper
/// reads.
struct MappingNode {
  MappingNode(const onnx::NodeProto& node, const MappingContext& context)
      : proto(node), ctx(context), rank(static_cast<std::int64_t>(shape_of(0).size())) {}

  const onnx::NodeProto& proto;
  const MappingContext& ctx;
  std::int64_t rank;  ///< of the first input

  /// The shape of input `i`; empty when it has no description or is not given.
  [[nodiscard]] std::vector<std::int64_t> shape_of(int i) const {
    if (i >= proto.input_size()) return {};
    const auto it = ctx.descs.find(proto.input(i));
    return it == ctx.descs.end() ? std::vector<std::int64_t>{} : it->second.shape;
  }
  /// The shape of output `i`; empty when it has no description or is not given.
  [[nodiscard]] std::vector<std::int64_t> out_shape(int i) const {
    if (i >= proto.output_size()) return {};
    const auto it = ctx.descs.find(proto.output(i));
    return it == ctx.descs.end() ? std::vector<std::int64_t>{} : it->second.shape;
  }
  /// The value of input `i`; nullptr when it is not a constant of known value.
  [[nodiscard]] const ConstTensor* value_of(int i) const {
    if (i >= proto.input_size()) return nullptr;
    const auto it = ctx.values.find(proto.input(i));
    return it == ctx.values.end() ? nullptr : &it->second;
  }
  /// An axis of the first input, counted from the end when negative; nullopt outside
  /// [-rank, rank).
  [[nodiscard]] std::optional<std::int64_t> normal_axis(std::int64_t a) const {
    if (a < -rank || a >= rank) return std::nullopt;
    return a < 0 ? a + rank : a;
  }
  /// `m` failing because `a`, the value of `name`, is not an axis of the first input.
  [[nodiscard]] Mapped bad_axis(Mapped m, std::string_view name, std::int64_t a) const {
    return with_error(std::move(m), std::string(name) + " " + std::to_string(a) +
                                        " is outside [-rank, rank) of the rank-" +
                                        std::to_string(rank) + " input");
  }
  /// The axes from attribute `name` or else from constant input `input`, normalised; nullopt
  /// (and `*wrong` set) when one is out of range.
  [[nodiscard]] std::optional<std::vector<std::int64_t>> axis_list(const char* name, int input,
                                                                   std::int64_t* wrong) const {
    std::vector<std::int64_t> axes;
    if (auto a = ints_attribute(proto, name)) {
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
  }
};

/// The mappers, one per operator or family of operators (the table `op_mappings`). Each gets
/// the node with its type set to the table's Ascend type and its inputs to `data_inputs`.
namespace mapper {

/// The Ascend type of the table and no attributes.
[[nodiscard]] inline Mapped plain(const MappingNode&, Mapped m) { return m; }

/// Anything of the default domain that the table does not list keeps its ONNX type: the
/// simulator has no model for it, and the job reports it among the operators it could not tune.
[[nodiscard]] inline Mapped keep_onnx_type(const MappingNode& node, Mapped m) {
  m.type = node.proto.op_type();
  return m;
}

[[nodiscard]] inline Mapped leaky_relu(const MappingNode& node, Mapped m) {
  m.attributes["negative_slope"] = float_attribute(node.proto, "alpha", 0.01);
  return m;
}

[[nodiscard]] inline Mapped hard_sigmoid(const MappingNode& node, Mapped m) {
  m.attributes["alpha"] = float_attribute(node.proto, "alpha", 0.2);
  m.attributes["beta"] = float_attribute(node.proto, "beta", 0.5);
  return m;
}

[[nodiscard]] inline Mapped cast(const MappingNode& node, Mapped m) {
  m.attributes["dst_type"] = int_attribute(node.proto, "to", 1);
  return m;
}

/// Clip: Relu6 or Relu when its bounds (attributes before opset 11, constant inputs since) say
/// so, ClipByValue otherwise.
[[nodiscard]] inline Mapped clip(const MappingNode& node, Mapped m) {
  const onnx::NodeProto& n = node.proto;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool known = true;
  if (node.ctx.opset < 11) {
    lo = float_attribute(n, "min", lo);
    hi = float_attribute(n, "max", hi);
  } else {
    for (int i = 1; i <= 2 && i < n.input_size(); ++i) {
      if (n.input(i).empty()) continue;
      const auto* v = node.value_of(i);
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

/// Why a convolution cannot be mapped whose weight's shape is unknown (a constant of a type aoe
/// does not read) or whose input, weight and output ranks disagree.
[[nodiscard]] inline std::string conv_rank_error(const onnx::NodeProto& n,
                                                 const std::vector<std::int64_t>& x,
                                                 const std::vector<std::int64_t>& w,
                                                 const std::vector<std::int64_t>& y) {
  const std::string weight = n.input_size() > 1 ? n.input(1) : std::string();
  return w.empty()
             ? "the shape of weight '" + weight + "' is unknown (a tensor type aoe does not read?)"
             : "input rank " + std::to_string(x.size()) + ", weight '" + weight + "' rank " +
                   std::to_string(w.size()) + ", output rank " + std::to_string(y.size()) +
                   " (a convolution needs the same rank for all three)";
}

/// Conv and ConvTranspose: 2-D (a 1-D one is 2-D of height 1), or 3-D for other ranks.
[[nodiscard]] inline Mapped conv(const MappingNode& node, Mapped m) {
  const onnx::NodeProto& n = node.proto;
  const std::string& op = n.op_type();
  const auto x = node.shape_of(0);
  const auto w = node.shape_of(1);
  const auto y = node.out_shape(0);
  const std::int64_t group = int_attribute(n, "group", 1);
  if (x.size() != 4 && x.size() != 3) {
    m.type = op == "Conv" ? "Conv3D" : "Conv3DTranspose";  // the simulator prices 2-D only
    return m;
  }
  if (w.size() != x.size() || y.size() != x.size()) {
    return with_error(std::move(m), conv_rank_error(n, x, w, y));
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

/// MatMul: of matrices, or batched; a vector operand is a row (first) or a column (second).
[[nodiscard]] inline Mapped matmul(const MappingNode& node, Mapped m) {
  auto a = node.shape_of(0);
  auto b = node.shape_of(1);
  if (a.size() == 1) a.insert(a.begin(), 1);  // a vector times a matrix: a row
  if (b.size() == 1) b.push_back(1);          // a matrix times a vector: a column
  m.input_shapes = {a, b};
  m.type = a.size() == 2 && b.size() == 2 ? "MatMul" : "BatchMatMul";
  return m;
}

[[nodiscard]] inline Mapped gemm(const MappingNode& node, Mapped m) {
  m.attributes["transpose_x1"] = int_attribute(node.proto, "transA", 0) != 0;
  m.attributes["transpose_x2"] = int_attribute(node.proto, "transB", 0) != 0;
  return m;
}

[[nodiscard]] inline Mapped batch_norm(const MappingNode& node, Mapped m) {
  m.attributes["epsilon"] = float_attribute(node.proto, "epsilon", 1e-5);
  m.attributes["is_training"] = false;
  return m;
}

/// MaxPool and AveragePool over a 2-D window.
[[nodiscard]] inline Mapped pool(const MappingNode& node, Mapped m) {
  const onnx::NodeProto& n = node.proto;
  const auto x = node.shape_of(0);
  const auto y = node.out_shape(0);
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

/// GlobalAveragePool and GlobalMaxPool: a reduction over the spatial axes.
[[nodiscard]] inline Mapped global_pool(const MappingNode& node, Mapped m) {
  std::vector<std::int64_t> axes;
  for (std::int64_t a = 2; a < node.rank; ++a) axes.push_back(a);
  m.attributes["axes"] = axes;
  m.attributes["keep_dims"] = true;
  return m;
}

/// Softmax and LogSoftmax: over `axis` (since opset 13), or the axes from it on (coerced to 2-D).
[[nodiscard]] inline Mapped softmax(const MappingNode& node, Mapped m) {
  const std::int64_t def = node.ctx.opset >= 13 ? -1 : 1;
  const std::int64_t given = int_attribute(node.proto, "axis", def);
  const auto axis = node.normal_axis(given);
  if (!axis) return node.bad_axis(std::move(m), "axis", given);
  std::vector<std::int64_t> axes;
  if (node.ctx.opset >= 13) {
    axes = {*axis};
  } else {
    for (std::int64_t a = *axis; a < node.rank; ++a) axes.push_back(a);  // coerced to 2-D
  }
  m.attributes["axes"] = axes;
  return m;
}

/// Reduce*: keeps its ONNX type; no axes reduce them all unless noop_with_empty_axes.
[[nodiscard]] inline Mapped reduce(const MappingNode& node, Mapped m) {
  m.type = node.proto.op_type();
  std::int64_t wrong = 0;
  auto listed = node.axis_list("axes", 1, &wrong);
  if (!listed) return node.bad_axis(std::move(m), "axes entry", wrong);
  auto axes = std::move(*listed);
  if (axes.empty() && int_attribute(node.proto, "noop_with_empty_axes", 0) == 0) {
    for (std::int64_t a = 0; a < node.rank; ++a) axes.push_back(a);
  }
  m.attributes["axes"] = axes;
  m.attributes["keep_dims"] = int_attribute(node.proto, "keepdims", 1) != 0;
  return m;
}

/// ArgMax and ArgMin.
[[nodiscard]] inline Mapped arg_extremum(const MappingNode& node, Mapped m) {
  const std::int64_t given = int_attribute(node.proto, "axis", 0);
  const auto axis = node.normal_axis(given);
  if (!axis) return node.bad_axis(std::move(m), "axis", given);
  m.attributes["axes"] = std::vector<std::int64_t>{*axis};
  return m;
}

[[nodiscard]] inline Mapped layer_norm(const MappingNode& node, Mapped m) {
  m.attributes["begin_norm_axis"] = int_attribute(node.proto, "axis", -1);
  m.attributes["epsilon"] = float_attribute(node.proto, "epsilon", 1e-5);
  return m;
}

/// Resize and Upsample: the Ascend operator of the interpolation mode.
[[nodiscard]] inline Mapped resize(const MappingNode& node, Mapped m) {
  const std::string mode = string_attribute(node.proto, "mode", "nearest");
  m.type = mode == "linear" || mode == "bilinear" ? "ResizeBilinearV2"
           : mode == "cubic"                      ? "ResizeBicubic"
                                                  : "ResizeNearestNeighborV2";
  m.attributes["mode"] = mode;
  return m;
}

[[nodiscard]] inline Mapped concat(const MappingNode& node, Mapped m) {
  m.attributes["concat_dim"] = int_attribute(node.proto, "axis", 0);
  return m;
}

[[nodiscard]] inline Mapped gather(const MappingNode& node, Mapped m) {
  m.attributes["axis"] = int_attribute(node.proto, "axis", 0);
  return m;
}

[[nodiscard]] inline Mapped transpose(const MappingNode& node, Mapped m) {
  if (auto p = ints_attribute(node.proto, "perm")) m.attributes["perm"] = *p;
  return m;
}

[[nodiscard]] inline Mapped split(const MappingNode& node, Mapped m) {
  m.attributes["split_dim"] = int_attribute(node.proto, "axis", 0);
  return m;
}

}  // namespace mapper

/// How an ONNX operator maps: its Ascend type (empty where the mapper picks one) and the mapper
/// that sets the attributes.
struct OpMapping {
  std::string_view onnx;
  std::string_view ascend;
  Mapped (*map)(const MappingNode&, Mapped);
};

/// The ONNX operators mapped (the table in docs/model_format.md#onnx-models); Reduce* and the
/// rest are in `mapping_of`.
inline constexpr OpMapping op_mappings[] = {
    // Elementwise.
    {"Add", "Add", mapper::plain},
    {"Sub", "Sub", mapper::plain},
    {"Mul", "Mul", mapper::plain},
    {"Div", "RealDiv", mapper::plain},
    {"Pow", "Pow", mapper::plain},
    {"Sqrt", "Sqrt", mapper::plain},
    {"Exp", "Exp", mapper::plain},
    {"Log", "Log", mapper::plain},
    {"Abs", "Abs", mapper::plain},
    {"Neg", "Neg", mapper::plain},
    {"Reciprocal", "Reciprocal", mapper::plain},
    {"Max", "Maximum", mapper::plain},
    {"Min", "Minimum", mapper::plain},
    {"Sum", "AddN", mapper::plain},
    {"Relu", "Relu", mapper::plain},
    {"LeakyRelu", "LeakyRelu", mapper::leaky_relu},
    {"PRelu", "PRelu", mapper::plain},
    {"Elu", "Elu", mapper::plain},
    {"Selu", "Selu", mapper::plain},
    {"Sigmoid", "Sigmoid", mapper::plain},
    {"HardSigmoid", "HardSigmoid", mapper::hard_sigmoid},
    {"HardSwish", "HardSwish", mapper::plain},
    {"Tanh", "Tanh", mapper::plain},
    {"Erf", "Erf", mapper::plain},
    {"Softplus", "Softplus", mapper::plain},
    {"Softsign", "Softsign", mapper::plain},
    {"Floor", "Floor", mapper::plain},
    {"Ceil", "Ceil", mapper::plain},
    {"Round", "Round", mapper::plain},
    {"Sign", "Sign", mapper::plain},
    {"Sin", "Sin", mapper::plain},
    {"Cos", "Cos", mapper::plain},
    {"Not", "LogicalNot", mapper::plain},
    {"And", "LogicalAnd", mapper::plain},
    {"Or", "LogicalOr", mapper::plain},
    {"Equal", "Equal", mapper::plain},
    {"Less", "Less", mapper::plain},
    {"Greater", "Greater", mapper::plain},
    {"LessOrEqual", "LessEqual", mapper::plain},
    {"GreaterOrEqual", "GreaterEqual", mapper::plain},
    {"Where", "Select", mapper::plain},
    {"Mish", "Mish", mapper::plain},
    {"Cast", "Cast", mapper::cast},
    {"Gelu", "Gelu", mapper::plain},
    {"Clip", "", mapper::clip},
    // Shape-only operators.
    {"Reshape", "Reshape", mapper::plain},
    {"Flatten", "Flatten", mapper::plain},
    {"Squeeze", "Squeeze", mapper::plain},
    {"Unsqueeze", "Unsqueeze", mapper::plain},
    {"Identity", "Identity", mapper::plain},
    {"Dropout", "Identity", mapper::plain},
    // Convolutions, matrix products, normalisations, pooling, reductions, resizing.
    {"Conv", "", mapper::conv},
    {"ConvTranspose", "", mapper::conv},
    {"MatMul", "", mapper::matmul},
    {"Gemm", "MatMulV2", mapper::gemm},
    {"BatchNormalization", "BatchNorm", mapper::batch_norm},
    {"InstanceNormalization", "InstanceNorm", mapper::plain},
    {"MaxPool", "MaxPool", mapper::pool},
    {"AveragePool", "AvgPool", mapper::pool},
    {"GlobalAveragePool", "ReduceMean", mapper::global_pool},
    {"GlobalMaxPool", "ReduceMax", mapper::global_pool},
    {"Softmax", "SoftmaxV2", mapper::softmax},
    {"LogSoftmax", "LogSoftmaxV2", mapper::softmax},
    {"ArgMax", "ArgMaxV2", mapper::arg_extremum},
    {"ArgMin", "ArgMinV2", mapper::arg_extremum},
    {"LayerNormalization", "LayerNorm", mapper::layer_norm},
    {"Resize", "", mapper::resize},
    {"Upsample", "", mapper::resize},
    // Data movement (priced as memory-bound copies).
    {"Concat", "ConcatD", mapper::concat},
    {"Split", "SplitD", mapper::split},
    {"Slice", "StridedSliceD", mapper::plain},
    {"Transpose", "TransposeD", mapper::transpose},
    {"Gather", "GatherV2", mapper::gather},
    {"Pad", "PadD", mapper::plain},
    {"Tile", "TileD", mapper::plain},
    {"Expand", "BroadcastToD", mapper::plain},
    {"DepthToSpace", "DepthToSpace", mapper::plain},
    {"SpaceToDepth", "SpaceToDepth", mapper::plain},
};

/// The mapping of ONNX operator `op`: its row of `op_mappings`, else the Reduce* family (which
/// keeps its ONNX type), else one that keeps the ONNX type.
[[nodiscard]] inline const OpMapping& mapping_of(std::string_view op) {
  for (const auto& e : op_mappings) {
    if (e.onnx == op) return e;
  }
  static constexpr OpMapping reduction{"Reduce*", "", mapper::reduce};
  static constexpr OpMapping unknown{"", "", mapper::keep_onnx_type};
  return op.starts_with("Reduce") ? reduction : unknown;
}

/// Maps `n` (whose inputs/outputs all have static descriptions in `ctx`).
[[nodiscard]] inline Mapped map_node(const onnx::NodeProto& n, const MappingContext& ctx) {
  const OpMapping& mapping = mapping_of(n.op_type());
  Mapped m;
  m.type = std::string(mapping.ascend);
  m.inputs = data_inputs(n.op_type(), n.input_size());
  return mapping.map(MappingNode(n, ctx), std::move(m));
}

}  // namespace aoe::onnx_import::detail

#endif  // AOE_GRAPH_ONNX_DETAIL_OPERATOR_MAPPING_HPP
