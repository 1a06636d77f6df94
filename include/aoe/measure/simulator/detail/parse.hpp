// Private: turns an OperatorDesc into a Model (shapes, bytes, vector passes), checking it.
#ifndef AOE_MEASURE_SIMULATOR_DETAIL_PARSE_HPP
#define AOE_MEASURE_SIMULATOR_DETAIL_PARSE_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/simulator/detail/model.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::sim::detail {

[[nodiscard]] inline std::vector<std::string> split_type(const std::string& type) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto plus = type.find('+', start);
    out.push_back(type.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
    if (plus == std::string::npos) return out;
    start = plus + 1;
  }
}

/// The largest magnitude of an integer attribute the simulator prices: 2^24.
inline constexpr std::int64_t max_int_attribute = std::int64_t{1} << 24;

/// a*b*c*d, or -1 when it overflows 64 bits.
[[nodiscard]] inline std::int64_t checked_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t p = 1;
  for (const auto f : factors) {
    if (__builtin_mul_overflow(p, f, &p)) return -1;
  }
  return p;
}

[[nodiscard]] inline bool flag_attr(const OperatorDesc& op, const std::string& name) {
  const auto it = op.attributes.find(name);
  if (it == op.attributes.end()) return false;
  if (const auto* b = std::get_if<bool>(&it->second)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return *i != 0;
  return false;
}

[[nodiscard]] inline std::string text_attr(const OperatorDesc& op, const std::string& name,
                                           std::string fallback) {
  const auto it = op.attributes.find(name);
  if (it == op.attributes.end()) return fallback;
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  return fallback;
}

[[nodiscard]] inline std::int64_t product(const std::vector<std::int64_t>& v, std::size_t from,
                                          std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

[[nodiscard]] inline bool is_cube_type(std::string_view t) {
  return t == "MatMul" || t == "MatMulV2" || t == "BatchMatMul" || t == "BatchMatMulV2" ||
         t == "FullyConnection" || t == "Conv2D" || t == "Conv2DTranspose";
}

/// Data-movement operators (imported models): priced as memory-bound copies on the vector
/// cores. `reads_input`: the operator reads all of its inputs (Concat, Transpose, Resize, Pad,
/// Tile, BroadcastTo); otherwise it reads about what it writes (a slice, a gather of rows).
struct DataMovement {
  std::string_view name;
  bool reads_input;
  double passes;  ///< vector passes per output element (index math of a resize, a transpose)
};
inline constexpr std::array<DataMovement, 12> data_movement_ops{{
    {"ConcatD", true, 1},
    {"SplitD", true, 1},
    {"StridedSliceD", false, 1},
    {"TransposeD", true, 2},
    {"GatherV2", false, 1},
    {"PadD", true, 1},
    {"TileD", true, 1},
    {"BroadcastToD", true, 1},
    {"DepthToSpace", true, 2},
    {"SpaceToDepth", true, 2},
    {"ResizeNearestNeighborV2", true, 2},
    {"ResizeBilinearV2", true, 6},
}};

[[nodiscard]] inline const DataMovement* data_movement(std::string_view t) {
  for (const auto& d : data_movement_ops) {
    if (d.name == t) return &d;
  }
  return nullptr;
}

/// Seconds of one TransData pass (read `in`, write `out` bytes) on the vector cores.
[[nodiscard]] inline double transdata_seconds(const Soc& s, double in, double out) {
  const double bw = s.effective_gm_bandwidth(s.vector_op_cores(), s.vector_op_frequency_ghz());
  return s.launch_overhead_seconds + (in + out) / (bw * s.transdata_efficiency);
}

/// Parses and checks `op`; errors name the operator and its type.
[[nodiscard]] inline Result<Model> parse(const Soc& soc, const OperatorDesc& op) {
  const std::string who = "operator '" + op.name + "' (" + op.type + ")";
  const auto bad = [&](const std::string& what) {
    return make_error(Errc::invalid_argument, who + ": " + what);
  };
  if (op.inputs.empty()) return bad("has no inputs");
  for (std::size_t i = 0; i < op.inputs.size() + op.outputs.size(); ++i) {
    const bool input = i < op.inputs.size();
    const auto& t = input ? op.inputs[i] : op.outputs[i - op.inputs.size()];
    const std::size_t index = input ? i : i - op.inputs.size();
    for (const auto d : t.shape) {
      if (d == -1) {
        return bad(std::string(input ? "input " : "output ") + std::to_string(index) +
                   " has a dynamic (-1) dimension; tuning needs static shapes");
      }
      if (d <= 0) {
        return bad(std::string(input ? "input " : "output ") + std::to_string(index) +
                   " has a non-positive dimension " + std::to_string(d));
      }
    }
    if (auto problem = t.size_problem()) {
      return bad(std::string(input ? "input " : "output ") + std::to_string(index) + ": " +
                 *problem);
    }
  }
  // Integer attributes (axes, pads, strides, kernel sizes, groups) are small in any real model;
  // the bound keeps the geometry arithmetic below in range.
  for (const auto& [name, value] : op.attributes) {
    std::vector<std::int64_t> ints;
    if (const auto* v = std::get_if<std::vector<std::int64_t>>(&value)) ints = *v;
    if (const auto* i = std::get_if<std::int64_t>(&value)) ints = {*i};
    for (const auto i : ints) {
      if (i < -max_int_attribute || i > max_int_attribute) {
        return bad("attribute '" + name + "' = " + std::to_string(i) +
                   " is out of range (expected at most 2^24 in magnitude)");
      }
    }
  }
  const std::vector<std::string> members = op.members.empty() ? split_type(op.type) : op.members;
  const std::string& head = members.front();
  Model md;

  // Epilogue of a fused cube op, or the whole of an elementwise chain.
  double chain_passes = 0;
  double fixpipe_passes = 0;
  bool variant = false;
  const std::size_t first_epilogue = is_cube_type(head) ? 1 : 0;
  for (std::size_t i = first_epilogue; i < members.size(); ++i) {
    const auto c = elementwise_cost(members[i]);
    if (!c) {
      if (i == 0) break;  // not an elementwise chain; handled below
      return make_error(Errc::unsupported, who + ": member '" + members[i] +
                                               "' cannot be fused after " + head +
                                               " (expected elementwise ops)");
    }
    chain_passes += *c;
    if (members[i] == "Relu" || members[i] == "ReluV2" || members[i] == "BiasAdd" ||
        members[i] == "BatchNorm" || members[i] == "BNInfer") {
      fixpipe_passes += *c;
    }
    variant = variant || has_precision_variant(members[i]);
  }

  const auto& x = op.inputs[0];
  const std::int64_t out_elements = op.outputs.empty() ? x.elements() : op.outputs[0].elements();

  if (head == "MatMul" || head == "MatMulV2" || head == "BatchMatMul" || head == "BatchMatMulV2" ||
      head == "FullyConnection") {
    if (op.inputs.size() < 2) return bad("expects two inputs (x1, x2)");
    const auto& a = op.inputs[0];
    const auto& b = op.inputs[1];
    if (a.shape.size() < 2 || b.shape.size() < 2) {
      return bad("expects inputs of rank >= 2, got ranks " + std::to_string(a.shape.size()) +
                 " and " + std::to_string(b.shape.size()));
    }
    const bool batched = head.starts_with("BatchMatMul");
    const bool ta =
        flag_attr(op, batched ? "adj_x1" : "transpose_a") || flag_attr(op, "transpose_x1");
    const bool tb =
        flag_attr(op, batched ? "adj_x2" : "transpose_b") || flag_attr(op, "transpose_x2");
    const auto ra = a.shape.size();
    const auto rb = b.shape.size();
    md.m = ta ? a.shape[ra - 1] : a.shape[ra - 2];
    md.k = ta ? a.shape[ra - 2] : a.shape[ra - 1];
    const std::int64_t kb = tb ? b.shape[rb - 1] : b.shape[rb - 2];
    md.n = tb ? b.shape[rb - 2] : b.shape[rb - 1];
    if (md.k != kb) {
      return bad("inconsistent shapes: x1 has K = " + std::to_string(md.k) +
                 " but x2 has K = " + std::to_string(kb));
    }
    md.batch = product(a.shape, 0, ra - 2);
    const std::int64_t batch_b = product(b.shape, 0, rb - 2);
    if (batch_b != 1 && batch_b != md.batch) {
      return bad("inconsistent batch: x1 has " + std::to_string(md.batch) + ", x2 has " +
                 std::to_string(batch_b));
    }
    if (!batched && md.batch != 1) return bad("MatMul expects 2-D inputs; use BatchMatMul");
    md.b_shared = batch_b == 1 && md.batch > 1;
    if (!op.outputs.empty() && out_elements != md.batch * md.m * md.n) {
      return bad("inconsistent shapes: output has " + std::to_string(out_elements) +
                 " elements, expected batch*M*N = " + std::to_string(md.batch * md.m * md.n));
    }
    for (std::size_t i = 2; i < op.inputs.size(); ++i) {
      if (op.inputs[i].elements() == md.n) md.bias = true;
    }
    md.family = Family::cube;
    md.kind = "matmul";
    md.in_bytes = static_cast<std::int64_t>(size_of(a.dtype));
    md.out_bytes =
        static_cast<std::int64_t>(size_of(op.outputs.empty() ? a.dtype : op.outputs[0].dtype));
    md.cube_formats = true;
    md.tensors_nd = a.format != Format::FRACTAL_NZ;
  } else if (head == "Conv2D" || head == "Conv2DTranspose") {
    // Conv2DTranspose is priced as Ascend runs it (Conv2DBackpropInput): a convolution over the
    // stride-dilated input, K = Cin/groups * kh * kw per output pixel; its filter is
    // [Cin, Cout/groups, kh, kw] and its output size comes from the model.
    const bool transposed = head == "Conv2DTranspose";
    if (op.inputs.size() < 2) return bad("expects two inputs (x, filter)");
    const auto& w = op.inputs[1];
    const std::string df = text_attr(op, "data_format", x.format == Format::NHWC ? "NHWC" : "NCHW");
    const bool nhwc = df == "NHWC";
    std::int64_t nb = 0, cin = 0, h = 0, wd = 0;
    if (x.shape.size() == 5) {
      nb = x.shape[0], cin = x.shape[1] * x.shape[4], h = x.shape[2], wd = x.shape[3];
    } else if (x.shape.size() == 4) {
      nb = x.shape[0];
      cin = nhwc ? x.shape[3] : x.shape[1];
      h = nhwc ? x.shape[1] : x.shape[2];
      wd = nhwc ? x.shape[2] : x.shape[3];
    } else {
      return bad("expects a 4-D (NCHW/NHWC) or 5-D (NC1HWC0) input, got rank " +
                 std::to_string(x.shape.size()));
    }
    if (w.shape.size() != 4) return bad("expects a 4-D filter");
    const auto groups_attr = attribute_ints(op, "groups", {1});
    const std::int64_t groups = groups_attr.empty() ? 1 : groups_attr[0];
    if (groups <= 0 || cin % groups != 0) {
      return bad("groups = " + std::to_string(groups) + " does not divide the " +
                 std::to_string(cin) + " input channels");
    }
    std::int64_t cout = 0, wcin = 0, kh = 0, kw = 0;
    if (transposed) {
      if (w.shape[0] != cin) {
        return bad("inconsistent shapes: input has " + std::to_string(cin) +
                   " channels, the transposed filter expects " + std::to_string(w.shape[0]));
      }
      cout = w.shape[1] * groups, wcin = cin / groups, kh = w.shape[2], kw = w.shape[3];
    } else if (w.format == Format::HWCN) {
      kh = w.shape[0], kw = w.shape[1], wcin = w.shape[2], cout = w.shape[3];
    } else if (w.format == Format::NHWC) {
      cout = w.shape[0], kh = w.shape[1], kw = w.shape[2], wcin = w.shape[3];
    } else {
      cout = w.shape[0], wcin = w.shape[1], kh = w.shape[2], kw = w.shape[3];
    }
    if (wcin * groups != cin || cout % groups != 0) {
      return bad("inconsistent shapes: input has " + std::to_string(cin) + " channels in " +
                 std::to_string(groups) + " group(s), filter expects " + std::to_string(wcin) +
                 " per group for " + std::to_string(cout) + " outputs");
    }
    const auto hw = [&](const std::vector<std::int64_t>& v, int which) -> std::int64_t {
      if (v.size() == 4) return v[static_cast<std::size_t>(nhwc ? 1 + which : 2 + which)];
      if (v.size() == 2) return v[static_cast<std::size_t>(which)];
      return v.empty() ? 1 : v[0];
    };
    const auto strides = attribute_ints(op, "strides", {1, 1});
    const auto dil = attribute_ints(op, "dilations", {1, 1});
    const std::int64_t sh = hw(strides, 0), sw = hw(strides, 1);
    const std::int64_t dh = hw(dil, 0), dw = hw(dil, 1);
    if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return bad("strides and dilations must be > 0");
    std::int64_t ho = 0, wo = 0;
    if (transposed) {
      if (op.outputs.empty() || op.outputs[0].shape.size() != 4) {
        return bad(
            "needs its 4-D output description (the output size of a transposed "
            "convolution depends on its padding)");
      }
      const auto& y = op.outputs[0].shape;
      ho = nhwc ? y[1] : y[2];
      wo = nhwc ? y[2] : y[3];
    } else {
      const auto pads = attribute_ints(op, "pads", {0, 0, 0, 0});
      if (pads.size() != 4) return bad("attribute 'pads' must be [top, bottom, left, right]");
      for (const auto p : pads) {
        if (p < 0) return bad("attribute 'pads' must be non-negative");
      }
      ho = (h + pads[0] + pads[1] - ((kh - 1) * dh + 1)) / sh + 1;
      wo = (wd + pads[2] + pads[3] - ((kw - 1) * dw + 1)) / sw + 1;
    }
    if (ho <= 0 || wo <= 0) return bad("the window is larger than the padded input");
    if (checked_product({nb, cout, ho, wo}) < 0) return bad("the output's size overflows");
    if (!op.outputs.empty() && out_elements != nb * cout * ho * wo) {
      return bad("inconsistent shapes: output has " + std::to_string(out_elements) +
                 " elements, expected N*Cout*Ho*Wo = " + std::to_string(nb * cout * ho * wo));
    }
    // A grouped convolution is `groups` independent convolutions: the cube's batch.
    md.batch = groups;
    cin /= groups;
    cout /= groups;
    md.family = Family::cube;
    md.kind = transposed ? "conv_transpose" : "conv";
    md.in_bytes = static_cast<std::int64_t>(size_of(x.dtype));
    md.out_bytes =
        static_cast<std::int64_t>(size_of(op.outputs.empty() ? x.dtype : op.outputs[0].dtype));
    const std::int64_t c0 = std::max<std::int64_t>(1, soc.cube_k_bytes / md.in_bytes);
    md.m = nb * ho * wo;
    md.k = round_up(cin, c0) * kh * kw;
    md.n = cout;
    // img2col happens in MTE1 (load3d): GM holds the feature map, read with a row halo.
    const double halo = 1.0 + static_cast<double>(kh - 1) / std::max<std::int64_t>(1, 8 * sh);
    md.a_gm_factor =
        std::min(1.0, static_cast<double>(h * wd) / static_cast<double>(ho * wo * kh * kw) * halo);
    for (std::size_t i = 2; i < op.inputs.size(); ++i) {
      if (op.inputs[i].elements() == out_elements) {
        md.extra_input_bytes += static_cast<double>(op.inputs[i].bytes());
      } else if (op.inputs[i].elements() == cout * groups) {
        md.bias = true;
      }
    }
  } else if (head == "DepthwiseConv2D" || head == "MaxPool" || head == "AvgPool" ||
             head == "MaxPoolV3" || head == "AvgPoolV2") {
    const bool depthwise = head == "DepthwiseConv2D";
    if (x.shape.size() != 4 && x.shape.size() != 5) return bad("expects a 4-D or 5-D input");
    const std::string df = text_attr(op, "data_format", x.format == Format::NHWC ? "NHWC" : "NCHW");
    const bool nhwc = df == "NHWC" && x.shape.size() == 4;
    const std::int64_t nb = x.shape[0];
    const std::int64_t c =
        x.shape.size() == 5 ? x.shape[1] * x.shape[4] : (nhwc ? x.shape[3] : x.shape[1]);
    const std::int64_t h = x.shape.size() == 5 ? x.shape[2] : (nhwc ? x.shape[1] : x.shape[2]);
    const std::int64_t wd = x.shape.size() == 5 ? x.shape[3] : (nhwc ? x.shape[2] : x.shape[3]);
    std::int64_t kh = 1, kw = 1, mult = 1;
    if (depthwise) {
      if (op.inputs.size() < 2 || op.inputs[1].shape.size() != 4) {
        return bad("expects a 4-D filter as input 1");
      }
      const auto& w = op.inputs[1].shape;
      if (op.inputs[1].format == Format::HWCN) {
        kh = w[0], kw = w[1], mult = w[3];
        if (w[2] != c) return bad("inconsistent shapes: filter channels differ from input's");
      } else {
        kh = w[2], kw = w[3], mult = w[0] / std::max<std::int64_t>(1, c);
        if (w[0] % c != 0) return bad("inconsistent shapes: filter channels differ from input's");
      }
    } else {
      const auto ks = attribute_ints(op, "ksize", {});
      if (ks.size() != 2 && ks.size() != 4) return bad("needs attribute 'ksize' (2 or 4 values)");
      kh = ks.size() == 4 ? ks[nhwc ? 1 : 2] : ks[0];
      kw = ks.size() == 4 ? ks[nhwc ? 2 : 3] : ks[1];
    }
    const auto strides = attribute_ints(op, "strides", {1, 1});
    const auto pads = attribute_ints(op, "pads", {0, 0, 0, 0});
    if (pads.size() != 4) return bad("attribute 'pads' must be [top, bottom, left, right]");
    for (const auto p : pads) {
      if (p < 0) return bad("attribute 'pads' must be non-negative");
    }
    if (strides.empty()) return bad("attribute 'strides' must not be empty");
    const std::int64_t sh = strides.size() == 4 ? strides[nhwc ? 1 : 2] : strides[0];
    const std::int64_t sw =
        strides.size() == 4 ? strides[nhwc ? 2 : 3] : strides[strides.size() > 1 ? 1 : 0];
    if (sh <= 0 || sw <= 0 || kh <= 0 || kw <= 0) return bad("strides and ksize must be > 0");
    const std::int64_t ho = (h + pads[0] + pads[1] - kh) / sh + 1;
    const std::int64_t wo = (wd + pads[2] + pads[3] - kw) / sw + 1;
    if (ho <= 0 || wo <= 0) return bad("the window is larger than the padded input");
    if (checked_product({nb, c, mult, ho, wo}) < 0) return bad("the output's size overflows");
    const std::int64_t expect = nb * c * mult * ho * wo;
    if (!op.outputs.empty() && out_elements != expect) {
      return bad("inconsistent shapes: output has " + std::to_string(out_elements) +
                 " elements, expected " + std::to_string(expect));
    }
    const double eb = static_cast<double>(size_of(x.dtype));
    const double in_ratio =
        std::max(1.0, static_cast<double>(h * wd) / (ho * wo)) *
        (1.0 + static_cast<double>(kh - sh) / std::max<std::int64_t>(1, 8 * sh));
    md.kind = depthwise ? "depthwise" : "pool";
    md.elements = expect;
    md.in_per_elem = eb * in_ratio / static_cast<double>(mult);
    md.out_per_elem = eb;
    md.passes = static_cast<double>(kh * kw) * (depthwise ? 1.0 : 1.0) +
                (head.starts_with("Avg") ? 1 : 0) + chain_passes;
    md.ub_per_elem = eb * in_ratio + eb + (depthwise ? 4 : 0);
    md.chip_bytes = static_cast<double>(x.bytes() + expect * static_cast<std::int64_t>(eb));
  } else if (head.starts_with("Reduce") || head == "ArgMaxV2" || head == "ArgMinV2" ||
             head == "SoftmaxV2" || head == "Softmax" || head == "LogSoftmaxV2" ||
             head == "LayerNorm") {
    const bool reduce = head.starts_with("Reduce") || head.starts_with("ArgM");
    const auto rank = static_cast<std::int64_t>(x.shape.size());
    std::vector<std::int64_t> axes;
    if (head == "LayerNorm") {
      auto b = attribute_ints(op, "begin_norm_axis", {-1});
      std::int64_t a0 = b.empty() ? -1 : b[0];
      if (a0 < -rank || a0 >= rank) {
        return bad("attribute 'begin_norm_axis' = " + std::to_string(a0) +
                   " is out of range for a rank-" + std::to_string(rank) + " input (expected " +
                   std::to_string(-rank) + " to " + std::to_string(rank - 1) + ")");
      }
      if (a0 < 0) a0 += rank;
      for (std::int64_t a = a0; a < rank; ++a) axes.push_back(a);
    } else {
      std::vector<std::int64_t> all(static_cast<std::size_t>(rank));
      std::iota(all.begin(), all.end(), 0);
      axes = attribute_ints(op, "axes", reduce ? all : std::vector<std::int64_t>{-1});
      if (axes.empty()) axes = all;
    }
    std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
    for (auto a : axes) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) {
        return bad("attribute 'axes': axis " + std::to_string(a) + " is out of range for a rank-" +
                   std::to_string(rank) + " input");
      }
      reduced[static_cast<std::size_t>(a)] = true;
    }
    std::int64_t row = 1;
    for (std::size_t i = 0; i < reduced.size(); ++i) row *= reduced[i] ? x.shape[i] : 1;
    const double eb = static_cast<double>(size_of(x.dtype));
    md.row = row;
    md.rows = x.elements() / row;
    md.elements = x.elements();
    md.in_per_elem = eb;
    if (reduce) {
      md.kind = "reduce";
      md.reduce_op = true;
      md.out_per_elem = eb / static_cast<double>(row);
      md.passes = 1 + (head.find("Mean") != std::string::npos ? 1.0 / row : 0.0);
      md.ub_per_elem = eb + 4;
      if (!op.outputs.empty() && out_elements != md.rows) {
        return bad("inconsistent shapes: output has " + std::to_string(out_elements) +
                   " elements, expected " + std::to_string(md.rows));
      }
    } else {
      const bool ln = head == "LayerNorm";
      md.kind = ln ? "layernorm" : "softmax";
      md.row_lanes = true;
      md.out_per_elem = eb;
      md.passes = ln ? 8 : 11;
      md.ub_per_elem = 2 * eb + 4;
      md.precision_variant = x.dtype == DataType::float16 || x.dtype == DataType::bfloat16;
      md.softmax_formats = !ln;
      md.tensor_nz = x.format == Format::FRACTAL_NZ;
      if (!op.outputs.empty() && out_elements != x.elements()) {
        return bad("inconsistent shapes: output differs from input in size");
      }
      if (md.softmax_formats) {
        md.format_transdata_seconds =
            transdata_seconds(soc, static_cast<double>(x.bytes()), static_cast<double>(x.bytes()));
      }
    }
    md.chip_bytes = static_cast<double>(x.bytes()) * (1 + md.out_per_elem / eb);
  } else if (const auto* dm = data_movement(head)) {
    double written = 0;
    std::int64_t e = 0;
    for (const auto& t : op.outputs) {
      written += static_cast<double>(t.bytes());
      e += t.elements();
    }
    if (op.outputs.empty()) return bad("needs its output descriptions (what it writes)");
    double read = 0;
    for (const auto& t : op.inputs) read += static_cast<double>(t.bytes());
    if (!dm->reads_input)
      read = std::min(
          read, written + (op.inputs.size() > 1 ? static_cast<double>(op.inputs[1].bytes()) : 0.0));
    const double eb = static_cast<double>(size_of(op.outputs[0].dtype));
    md.kind = "datamove";
    md.elements = e;
    md.in_per_elem = read / static_cast<double>(e);
    md.out_per_elem = written / static_cast<double>(e);
    md.passes = dm->passes;
    md.ub_per_elem = md.in_per_elem + md.out_per_elem + (dm->passes > 1 ? eb : 0);
    md.chip_bytes = read + written;
  } else if (head == "TransData") {
    const Format dst = op.outputs.empty() ? Format::FRACTAL_NZ : op.outputs[0].format;
    const double eb = static_cast<double>(size_of(x.dtype));
    double pad = 1;
    if (x.shape.size() >= 2) {
      const auto r = x.shape.size();
      const bool nz = dst == Format::FRACTAL_NZ || x.format == Format::FRACTAL_NZ;
      const auto c = nz ? x.shape[r - 1] * x.shape[r - 2] : x.shape[1];
      const auto cp = nz ? round_up(x.shape[r - 1], 16) * round_up(x.shape[r - 2], 16)
                         : round_up(x.shape[1], 16);
      pad = static_cast<double>(cp) / static_cast<double>(c);
    }
    md.kind = "transdata";
    md.elements = x.elements();
    md.in_per_elem = eb;
    md.out_per_elem = eb * pad;
    md.passes = 1 * pad;
    md.ub_per_elem = eb + eb * pad;
    md.chip_bytes = static_cast<double>(x.bytes()) * (1 + pad);
  } else if (elementwise_cost(head)) {
    const std::int64_t e = std::max(out_elements, x.elements());
    double in = 0;
    for (const auto& t : op.inputs) {
      if (e % t.elements() != 0) {
        return bad("inconsistent shapes: an input of " + std::to_string(t.elements()) +
                   " elements does not broadcast to " + std::to_string(e));
      }
      in += static_cast<double>(t.bytes());
    }
    const DataType od = op.outputs.empty() ? x.dtype : op.outputs[0].dtype;
    const double ob = static_cast<double>(size_of(od));
    const double wide = std::max(ob, static_cast<double>(size_of(x.dtype)));
    md.kind = "elementwise";
    md.elements = e;
    md.in_per_elem = in / static_cast<double>(e);
    md.out_per_elem = ob;
    md.passes = chain_passes * std::max(1.0, wide / 2);
    md.ub_per_elem = md.in_per_elem + ob + (members.size() > 1 ? wide : 0);
    md.precision_variant = variant && wide <= 2;
    md.chip_bytes = in + static_cast<double>(e) * ob;
  } else {
    return make_error(Errc::unsupported,
                      who + ": the simulator has no model for '" + head +
                          "' (see docs/simulator.md for the supported operator types)");
  }

  if (md.family == Family::cube) {
    md.k0 = std::max<std::int64_t>(1, soc.cube_k_bytes / md.in_bytes);
    md.epilogue_passes = chain_passes + (md.bias && chain_passes == 0 ? 1 : 0);
    md.epilogue_fixpipe_passes = fixpipe_passes + (md.bias && chain_passes == 0 ? 1 : 0);
    md.precision_variant = false;
    if (md.kind == "matmul") {
      const double a = static_cast<double>(md.batch * md.m * md.k * md.in_bytes);
      const double b =
          static_cast<double>((md.b_shared ? 1 : md.batch) * md.k * md.n * md.in_bytes);
      const double c = static_cast<double>(md.batch * md.m * md.n * md.out_bytes);
      const auto padded = [](std::int64_t r, std::int64_t cc) {
        return static_cast<double>(round_up(r, 16) * round_up(cc, 16)) /
               static_cast<double>(r * cc);
      };
      md.format_transdata_seconds = transdata_seconds(soc, a, a * padded(md.m, md.k)) +
                                    transdata_seconds(soc, b, b * padded(md.k, md.n)) +
                                    transdata_seconds(soc, c * padded(md.m, md.n), c);
    }
  } else if (md.kind != "softmax" && md.kind != "layernorm") {
    md.precision_variant = md.precision_variant && md.kind == "elementwise";
  }
  return md;
}

}  // namespace aoe::sim::detail

#endif  // AOE_MEASURE_SIMULATOR_DETAIL_PARSE_HPP
