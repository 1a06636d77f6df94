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

// ---- Checks every operator passes -------------------------------------------------------------

/// The error for an operator that does not make sense: `who` names it, `what` says why.
[[nodiscard]] inline ErrorInfo invalid_operator(const std::string& who, const std::string& what) {
  return make_error(Errc::invalid_argument, who + ": " + what);
}

/// Static, positive dimensions and a size that fits, for input or output `index`.
[[nodiscard]] inline Result<void> check_tensor(const std::string& who, const TensorDesc& t,
                                               bool input, std::size_t index) {
  const std::string which = std::string(input ? "input " : "output ") + std::to_string(index);
  for (const auto d : t.shape) {
    if (d == -1) {
      return invalid_operator(who,
                              which + " has a dynamic (-1) dimension; tuning needs static shapes");
    }
    if (d <= 0) {
      return invalid_operator(who, which + " has a non-positive dimension " + std::to_string(d));
    }
  }
  if (auto problem = t.size_problem()) return invalid_operator(who, which + ": " + *problem);
  return {};
}

/// At least one input, and every input, then every output, passes check_tensor.
[[nodiscard]] inline Result<void> check_tensors(const std::string& who, const OperatorDesc& op) {
  if (op.inputs.empty()) return invalid_operator(who, "has no inputs");
  for (std::size_t i = 0; i < op.inputs.size(); ++i) {
    if (auto ok = check_tensor(who, op.inputs[i], true, i); !ok) return ok;
  }
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    if (auto ok = check_tensor(who, op.outputs[i], false, i); !ok) return ok;
  }
  return {};
}

/// Integer attributes (axes, pads, strides, kernel sizes, groups) are small in any real model;
/// the bound keeps the geometry arithmetic of the parsers in range.
[[nodiscard]] inline Result<void> check_int_attributes(const std::string& who,
                                                       const OperatorDesc& op) {
  for (const auto& [name, value] : op.attributes) {
    std::vector<std::int64_t> ints;
    if (const auto* v = std::get_if<std::vector<std::int64_t>>(&value)) ints = *v;
    if (const auto* i = std::get_if<std::int64_t>(&value)) ints = {*i};
    for (const auto i : ints) {
      if (i < -max_int_attribute || i > max_int_attribute) {
        return invalid_operator(who, "attribute '" + name + "' = " + std::to_string(i) +
                                         " is out of range (expected at most 2^24 in magnitude)");
      }
    }
  }
  return {};
}

/// The elementwise members of a fused operator: the epilogue of a fused cube op, or the whole
/// of an elementwise chain (none when the head is neither).
struct Chain {
  double passes = 0;          ///< vector passes of all members
  double fixpipe_passes = 0;  ///< of which FixPipe does for free (Relu, bias, BN)
  bool variant = false;       ///< some member has a high_precision implementation
};

[[nodiscard]] inline Result<Chain> fused_chain(const std::string& who,
                                               const std::vector<std::string>& members) {
  const std::string& head = members.front();
  Chain chain;
  const std::size_t first_epilogue = is_cube_type(head) ? 1 : 0;
  for (std::size_t i = first_epilogue; i < members.size(); ++i) {
    const auto c = elementwise_cost(members[i]);
    if (!c) {
      if (i == 0) break;  // not an elementwise chain; the head's parser prices it
      return make_error(Errc::unsupported, who + ": member '" + members[i] +
                                               "' cannot be fused after " + head +
                                               " (expected elementwise ops)");
    }
    chain.passes += *c;
    if (members[i] == "Relu" || members[i] == "ReluV2" || members[i] == "BiasAdd" ||
        members[i] == "BatchNorm" || members[i] == "BNInfer") {
      chain.fixpipe_passes += *c;
    }
    chain.variant = chain.variant || has_precision_variant(members[i]);
  }
  return chain;
}

/// What each family's parser reads: the checked operator, its member types (the head first),
/// its fused chain and the SoC.
struct ParseInput {
  const Soc& soc;
  const OperatorDesc& op;
  const std::vector<std::string>& members;
  const Chain& chain;
  std::string who;            ///< "operator 'name' (type)", the start of every error
  std::int64_t out_elements;  ///< of output 0, or of input 0 when no output is described

  [[nodiscard]] const std::string& head() const { return members.front(); }
  [[nodiscard]] const TensorDesc& x() const { return op.inputs[0]; }
  [[nodiscard]] ErrorInfo bad(const std::string& what) const { return invalid_operator(who, what); }
};

/// Bytes per element of output 0, or of `fallback` when no output is described.
[[nodiscard]] inline std::int64_t out_element_bytes(const OperatorDesc& op, DataType fallback) {
  return static_cast<std::int64_t>(size_of(op.outputs.empty() ? fallback : op.outputs[0].dtype));
}

/// Whether the first input is laid out NHWC: attribute `data_format`, else the tensor's format.
[[nodiscard]] inline bool data_format_nhwc(const ParseInput& p) {
  return text_attr(p.op, "data_format", p.x().format == Format::NHWC ? "NHWC" : "NCHW") == "NHWC";
}

/// Attribute `pads`: [top, bottom, left, right], non-negative.
[[nodiscard]] inline Result<std::vector<std::int64_t>> window_pads(const ParseInput& p) {
  auto pads = attribute_ints(p.op, "pads", {0, 0, 0, 0});
  if (pads.size() != 4) return p.bad("attribute 'pads' must be [top, bottom, left, right]");
  for (const auto pad : pads) {
    if (pad < 0) return p.bad("attribute 'pads' must be non-negative");
  }
  return pads;
}

// ---- Cube operators ---------------------------------------------------------------------------

/// MatMul, MatMulV2, BatchMatMul, BatchMatMulV2, FullyConnection.
[[nodiscard]] inline Result<Model> parse_matmul(const ParseInput& p) {
  const auto& op = p.op;
  if (op.inputs.size() < 2) return p.bad("expects two inputs (x1, x2)");
  const auto& a = op.inputs[0];
  const auto& b = op.inputs[1];
  if (a.shape.size() < 2 || b.shape.size() < 2) {
    return p.bad("expects inputs of rank >= 2, got ranks " + std::to_string(a.shape.size()) +
                 " and " + std::to_string(b.shape.size()));
  }
  const bool batched = p.head().starts_with("BatchMatMul");
  const bool ta =
      flag_attr(op, batched ? "adj_x1" : "transpose_a") || flag_attr(op, "transpose_x1");
  const bool tb =
      flag_attr(op, batched ? "adj_x2" : "transpose_b") || flag_attr(op, "transpose_x2");
  const auto ra = a.shape.size();
  const auto rb = b.shape.size();
  Model md;
  md.m = ta ? a.shape[ra - 1] : a.shape[ra - 2];
  md.k = ta ? a.shape[ra - 2] : a.shape[ra - 1];
  const std::int64_t kb = tb ? b.shape[rb - 1] : b.shape[rb - 2];
  md.n = tb ? b.shape[rb - 2] : b.shape[rb - 1];
  if (md.k != kb) {
    return p.bad("inconsistent shapes: x1 has K = " + std::to_string(md.k) +
                 " but x2 has K = " + std::to_string(kb));
  }
  md.batch = product(a.shape, 0, ra - 2);
  const std::int64_t batch_b = product(b.shape, 0, rb - 2);
  if (batch_b != 1 && batch_b != md.batch) {
    return p.bad("inconsistent batch: x1 has " + std::to_string(md.batch) + ", x2 has " +
                 std::to_string(batch_b));
  }
  if (!batched && md.batch != 1) return p.bad("MatMul expects 2-D inputs; use BatchMatMul");
  md.b_shared = batch_b == 1 && md.batch > 1;
  if (!op.outputs.empty() && p.out_elements != md.batch * md.m * md.n) {
    return p.bad("inconsistent shapes: output has " + std::to_string(p.out_elements) +
                 " elements, expected batch*M*N = " + std::to_string(md.batch * md.m * md.n));
  }
  for (std::size_t i = 2; i < op.inputs.size(); ++i) {
    if (op.inputs[i].elements() == md.n) md.bias = true;
  }
  md.family = Family::cube;
  md.kind = "matmul";
  md.in_bytes = static_cast<std::int64_t>(size_of(a.dtype));
  md.out_bytes = out_element_bytes(op, a.dtype);
  md.cube_formats = true;
  md.tensors_nd = a.format != Format::FRACTAL_NZ;
  return md;
}

/// A convolution's geometry in NCHW terms, whatever the layout of its tensors.
struct ConvShape {
  bool nhwc = false;
  std::int64_t nb = 0, cin = 0, h = 0, wd = 0;        ///< input
  std::int64_t groups = 1, cout = 0, kh = 0, kw = 0;  ///< filter
  std::int64_t sh = 1, sw = 1, dh = 1, dw = 1;        ///< strides, dilations
  std::int64_t ho = 0, wo = 0;                        ///< output
};

/// N, Cin, H, W of the input: 4-D NCHW/NHWC or 5-D NC1HWC0.
[[nodiscard]] inline Result<void> conv_input(const ParseInput& p, ConvShape& c) {
  const auto& x = p.x();
  if (x.shape.size() == 5) {
    c.nb = x.shape[0], c.cin = x.shape[1] * x.shape[4], c.h = x.shape[2], c.wd = x.shape[3];
  } else if (x.shape.size() == 4) {
    c.nb = x.shape[0];
    c.cin = c.nhwc ? x.shape[3] : x.shape[1];
    c.h = c.nhwc ? x.shape[1] : x.shape[2];
    c.wd = c.nhwc ? x.shape[2] : x.shape[3];
  } else {
    return p.bad("expects a 4-D (NCHW/NHWC) or 5-D (NC1HWC0) input, got rank " +
                 std::to_string(x.shape.size()));
  }
  return {};
}

/// Groups, Cout, kh, kw of the filter (input 1), consistent with the input's channels.
[[nodiscard]] inline Result<void> conv_filter(const ParseInput& p, bool transposed, ConvShape& c) {
  const auto& w = p.op.inputs[1];
  if (w.shape.size() != 4) return p.bad("expects a 4-D filter");
  const auto groups_attr = attribute_ints(p.op, "groups", {1});
  c.groups = groups_attr.empty() ? 1 : groups_attr[0];
  if (c.groups <= 0 || c.cin % c.groups != 0) {
    return p.bad("groups = " + std::to_string(c.groups) + " does not divide the " +
                 std::to_string(c.cin) + " input channels");
  }
  std::int64_t wcin = 0;
  if (transposed) {
    if (w.shape[0] != c.cin) {
      return p.bad("inconsistent shapes: input has " + std::to_string(c.cin) +
                   " channels, the transposed filter expects " + std::to_string(w.shape[0]));
    }
    c.cout = w.shape[1] * c.groups, wcin = c.cin / c.groups, c.kh = w.shape[2], c.kw = w.shape[3];
  } else if (w.format == Format::HWCN) {
    c.kh = w.shape[0], c.kw = w.shape[1], wcin = w.shape[2], c.cout = w.shape[3];
  } else if (w.format == Format::NHWC) {
    c.cout = w.shape[0], c.kh = w.shape[1], c.kw = w.shape[2], wcin = w.shape[3];
  } else {
    c.cout = w.shape[0], wcin = w.shape[1], c.kh = w.shape[2], c.kw = w.shape[3];
  }
  if (wcin * c.groups != c.cin || c.cout % c.groups != 0) {
    return p.bad("inconsistent shapes: input has " + std::to_string(c.cin) + " channels in " +
                 std::to_string(c.groups) + " group(s), filter expects " + std::to_string(wcin) +
                 " per group for " + std::to_string(c.cout) + " outputs");
  }
  return {};
}

/// The H (`which` 0) or W (1) value of a convolution's strides or dilations: 4 values in the
/// data format's order, 2 values [h, w], or one for both.
[[nodiscard]] inline std::int64_t conv_hw(const std::vector<std::int64_t>& v, bool nhwc,
                                          int which) {
  if (v.size() == 4) return v[static_cast<std::size_t>(nhwc ? 1 + which : 2 + which)];
  if (v.size() == 2) return v[static_cast<std::size_t>(which)];
  return v.empty() ? 1 : v[0];
}

/// Strides, dilations and the output's Ho, Wo: from the pads, or for a transposed convolution
/// from its output description.
[[nodiscard]] inline Result<void> conv_output(const ParseInput& p, bool transposed, ConvShape& c) {
  const auto strides = attribute_ints(p.op, "strides", {1, 1});
  const auto dil = attribute_ints(p.op, "dilations", {1, 1});
  c.sh = conv_hw(strides, c.nhwc, 0), c.sw = conv_hw(strides, c.nhwc, 1);
  c.dh = conv_hw(dil, c.nhwc, 0), c.dw = conv_hw(dil, c.nhwc, 1);
  if (c.sh <= 0 || c.sw <= 0 || c.dh <= 0 || c.dw <= 0) {
    return p.bad("strides and dilations must be > 0");
  }
  if (transposed) {
    if (p.op.outputs.empty() || p.op.outputs[0].shape.size() != 4) {
      return p.bad(
          "needs its 4-D output description (the output size of a transposed "
          "convolution depends on its padding)");
    }
    const auto& y = p.op.outputs[0].shape;
    c.ho = c.nhwc ? y[1] : y[2];
    c.wo = c.nhwc ? y[2] : y[3];
  } else {
    const auto pads = window_pads(p);
    if (!pads) return pads.error();
    const auto& pad = *pads;
    c.ho = (c.h + pad[0] + pad[1] - ((c.kh - 1) * c.dh + 1)) / c.sh + 1;
    c.wo = (c.wd + pad[2] + pad[3] - ((c.kw - 1) * c.dw + 1)) / c.sw + 1;
  }
  if (c.ho <= 0 || c.wo <= 0) return p.bad("the window is larger than the padded input");
  if (checked_product({c.nb, c.cout, c.ho, c.wo}) < 0) return p.bad("the output's size overflows");
  if (!p.op.outputs.empty() && p.out_elements != c.nb * c.cout * c.ho * c.wo) {
    return p.bad(
        "inconsistent shapes: output has " + std::to_string(p.out_elements) +
        " elements, expected N*Cout*Ho*Wo = " + std::to_string(c.nb * c.cout * c.ho * c.wo));
  }
  return {};
}

/// Conv2D and Conv2DTranspose as an img2col GEMM: M = N*Ho*Wo, K = Cin*kh*kw, N = Cout.
///
/// Conv2DTranspose is priced as Ascend runs it (Conv2DBackpropInput): a convolution over the
/// stride-dilated input, K = Cin/groups * kh * kw per output pixel; its filter is
/// [Cin, Cout/groups, kh, kw] and its output size comes from the model.
[[nodiscard]] inline Result<Model> parse_conv(const ParseInput& p) {
  const bool transposed = p.head() == "Conv2DTranspose";
  if (p.op.inputs.size() < 2) return p.bad("expects two inputs (x, filter)");
  ConvShape c{.nhwc = data_format_nhwc(p)};
  if (auto ok = conv_input(p, c); !ok) return ok.error();
  if (auto ok = conv_filter(p, transposed, c); !ok) return ok.error();
  if (auto ok = conv_output(p, transposed, c); !ok) return ok.error();
  // A grouped convolution is `groups` independent convolutions: the cube's batch.
  const auto& x = p.x();
  const std::int64_t cin = c.cin / c.groups;
  const std::int64_t cout = c.cout / c.groups;
  Model md;
  md.batch = c.groups;
  md.family = Family::cube;
  md.kind = transposed ? "conv_transpose" : "conv";
  md.in_bytes = static_cast<std::int64_t>(size_of(x.dtype));
  md.out_bytes = out_element_bytes(p.op, x.dtype);
  const std::int64_t c0 = std::max<std::int64_t>(1, p.soc.cube_k_bytes / md.in_bytes);
  md.m = c.nb * c.ho * c.wo;
  md.k = round_up(cin, c0) * c.kh * c.kw;
  md.n = cout;
  // img2col happens in MTE1 (load3d): GM holds the feature map, read with a row halo.
  const double halo = 1.0 + static_cast<double>(c.kh - 1) / std::max<std::int64_t>(1, 8 * c.sh);
  md.a_gm_factor = std::min(
      1.0, static_cast<double>(c.h * c.wd) / static_cast<double>(c.ho * c.wo * c.kh * c.kw) * halo);
  for (std::size_t i = 2; i < p.op.inputs.size(); ++i) {
    if (p.op.inputs[i].elements() == p.out_elements) {
      md.extra_input_bytes += static_cast<double>(p.op.inputs[i].bytes());
    } else if (p.op.inputs[i].elements() == cout * c.groups) {
      md.bias = true;
    }
  }
  return md;
}

// ---- Vector operators -------------------------------------------------------------------------

/// A sliding-window operator's geometry in NCHW terms.
struct WindowShape {
  bool nhwc = false;
  std::int64_t nb = 0, c = 0, h = 0, wd = 0;  ///< input
  std::int64_t kh = 1, kw = 1, mult = 1;      ///< window; channel multiplier (depthwise)
  std::int64_t sh = 1, sw = 1;                ///< strides
  std::int64_t ho = 0, wo = 0;                ///< output
};

/// The window of DepthwiseConv2D (its filter, input 1) or of a pool (attribute `ksize`).
[[nodiscard]] inline Result<void> window_kernel(const ParseInput& p, bool depthwise,
                                                WindowShape& s) {
  if (!depthwise) {
    const auto ks = attribute_ints(p.op, "ksize", {});
    if (ks.size() != 2 && ks.size() != 4) return p.bad("needs attribute 'ksize' (2 or 4 values)");
    s.kh = ks.size() == 4 ? ks[s.nhwc ? 1 : 2] : ks[0];
    s.kw = ks.size() == 4 ? ks[s.nhwc ? 2 : 3] : ks[1];
    return {};
  }
  if (p.op.inputs.size() < 2 || p.op.inputs[1].shape.size() != 4) {
    return p.bad("expects a 4-D filter as input 1");
  }
  const auto& w = p.op.inputs[1].shape;
  if (p.op.inputs[1].format == Format::HWCN) {
    s.kh = w[0], s.kw = w[1], s.mult = w[3];
    if (w[2] != s.c) return p.bad("inconsistent shapes: filter channels differ from input's");
  } else {
    s.kh = w[2], s.kw = w[3], s.mult = w[0] / std::max<std::int64_t>(1, s.c);
    if (w[0] % s.c != 0) return p.bad("inconsistent shapes: filter channels differ from input's");
  }
  return {};
}

/// Strides, pads and the output's Ho, Wo of a sliding-window operator.
[[nodiscard]] inline Result<void> window_output(const ParseInput& p, WindowShape& s) {
  const auto strides = attribute_ints(p.op, "strides", {1, 1});
  const auto pads = window_pads(p);
  if (!pads) return pads.error();
  const auto& pad = *pads;
  if (strides.empty()) return p.bad("attribute 'strides' must not be empty");
  s.sh = strides.size() == 4 ? strides[s.nhwc ? 1 : 2] : strides[0];
  s.sw = strides.size() == 4 ? strides[s.nhwc ? 2 : 3] : strides[strides.size() > 1 ? 1 : 0];
  if (s.sh <= 0 || s.sw <= 0 || s.kh <= 0 || s.kw <= 0) {
    return p.bad("strides and ksize must be > 0");
  }
  s.ho = (s.h + pad[0] + pad[1] - s.kh) / s.sh + 1;
  s.wo = (s.wd + pad[2] + pad[3] - s.kw) / s.sw + 1;
  if (s.ho <= 0 || s.wo <= 0) return p.bad("the window is larger than the padded input");
  if (checked_product({s.nb, s.c, s.mult, s.ho, s.wo}) < 0) {
    return p.bad("the output's size overflows");
  }
  return {};
}

/// DepthwiseConv2D, MaxPool, AvgPool, MaxPoolV3, AvgPoolV2: a window over a 4-D or 5-D input.
[[nodiscard]] inline Result<Model> parse_window(const ParseInput& p) {
  const bool depthwise = p.head() == "DepthwiseConv2D";
  const auto& x = p.x();
  if (x.shape.size() != 4 && x.shape.size() != 5) return p.bad("expects a 4-D or 5-D input");
  const bool five = x.shape.size() == 5;
  WindowShape s{.nhwc = data_format_nhwc(p) && !five};
  s.nb = x.shape[0];
  s.c = five ? x.shape[1] * x.shape[4] : (s.nhwc ? x.shape[3] : x.shape[1]);
  s.h = five ? x.shape[2] : (s.nhwc ? x.shape[1] : x.shape[2]);
  s.wd = five ? x.shape[3] : (s.nhwc ? x.shape[2] : x.shape[3]);
  if (auto ok = window_kernel(p, depthwise, s); !ok) return ok.error();
  if (auto ok = window_output(p, s); !ok) return ok.error();
  const std::int64_t expect = s.nb * s.c * s.mult * s.ho * s.wo;
  if (!p.op.outputs.empty() && p.out_elements != expect) {
    return p.bad("inconsistent shapes: output has " + std::to_string(p.out_elements) +
                 " elements, expected " + std::to_string(expect));
  }
  const double eb = static_cast<double>(size_of(x.dtype));
  const double in_ratio =
      std::max(1.0, static_cast<double>(s.h * s.wd) / (s.ho * s.wo)) *
      (1.0 + static_cast<double>(s.kh - s.sh) / std::max<std::int64_t>(1, 8 * s.sh));
  Model md;
  md.kind = depthwise ? "depthwise" : "pool";
  md.elements = expect;
  md.in_per_elem = eb * in_ratio / static_cast<double>(s.mult);
  md.out_per_elem = eb;
  md.passes =
      static_cast<double>(s.kh * s.kw) + (p.head().starts_with("Avg") ? 1 : 0) + p.chain.passes;
  md.ub_per_elem = eb * in_ratio + eb + (depthwise ? 4 : 0);
  md.chip_bytes = static_cast<double>(x.bytes() + expect * static_cast<std::int64_t>(eb));
  return md;
}

/// Which axes of the input a row op reduces over: LayerNorm from `begin_norm_axis` to the last,
/// the others attribute `axes` (default: all for a reduction, the last for a softmax).
[[nodiscard]] inline Result<std::vector<bool>> row_axes(const ParseInput& p, bool reduce) {
  const auto rank = static_cast<std::int64_t>(p.x().shape.size());
  std::vector<std::int64_t> axes;
  if (p.head() == "LayerNorm") {
    auto b = attribute_ints(p.op, "begin_norm_axis", {-1});
    std::int64_t a0 = b.empty() ? -1 : b[0];
    if (a0 < -rank || a0 >= rank) {
      return p.bad("attribute 'begin_norm_axis' = " + std::to_string(a0) +
                   " is out of range for a rank-" + std::to_string(rank) + " input (expected " +
                   std::to_string(-rank) + " to " + std::to_string(rank - 1) + ")");
    }
    if (a0 < 0) a0 += rank;
    for (std::int64_t a = a0; a < rank; ++a) axes.push_back(a);
  } else {
    std::vector<std::int64_t> all(static_cast<std::size_t>(rank));
    std::iota(all.begin(), all.end(), 0);
    axes = attribute_ints(p.op, "axes", reduce ? all : std::vector<std::int64_t>{-1});
    if (axes.empty()) axes = all;
  }
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (auto a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) {
      return p.bad("attribute 'axes': axis " + std::to_string(a) + " is out of range for a rank-" +
                   std::to_string(rank) + " input");
    }
    reduced[static_cast<std::size_t>(a)] = true;
  }
  return reduced;
}

/// The reduction's part of a row op's model (ReduceSum, ReduceMean, ArgMaxV2, ...).
[[nodiscard]] inline Result<void> reduce_model(const ParseInput& p, double eb, Model& md) {
  md.kind = "reduce";
  md.reduce_op = true;
  md.out_per_elem = eb / static_cast<double>(md.row);
  md.passes = 1 + (p.head().find("Mean") != std::string::npos ? 1.0 / md.row : 0.0);
  md.ub_per_elem = eb + 4;
  if (!p.op.outputs.empty() && p.out_elements != md.rows) {
    return p.bad("inconsistent shapes: output has " + std::to_string(p.out_elements) +
                 " elements, expected " + std::to_string(md.rows));
  }
  return {};
}

/// The softmax's or LayerNorm's part of a row op's model.
[[nodiscard]] inline Result<void> normalize_model(const ParseInput& p, double eb, Model& md) {
  const auto& x = p.x();
  const bool ln = p.head() == "LayerNorm";
  md.kind = ln ? "layernorm" : "softmax";
  md.row_lanes = true;
  md.out_per_elem = eb;
  md.passes = ln ? 8 : 11;
  md.ub_per_elem = 2 * eb + 4;
  md.precision_variant = x.dtype == DataType::float16 || x.dtype == DataType::bfloat16;
  md.softmax_formats = !ln;
  md.tensor_nz = x.format == Format::FRACTAL_NZ;
  if (!p.op.outputs.empty() && p.out_elements != x.elements()) {
    return p.bad("inconsistent shapes: output differs from input in size");
  }
  if (md.softmax_formats) {
    md.format_transdata_seconds =
        transdata_seconds(p.soc, static_cast<double>(x.bytes()), static_cast<double>(x.bytes()));
  }
  return {};
}

/// Row ops: Reduce*, ArgMaxV2, ArgMinV2, SoftmaxV2, Softmax, LogSoftmaxV2, LayerNorm.
[[nodiscard]] inline Result<Model> parse_row_op(const ParseInput& p) {
  const auto& x = p.x();
  const bool reduce = p.head().starts_with("Reduce") || p.head().starts_with("ArgM");
  const auto reduced = row_axes(p, reduce);
  if (!reduced) return reduced.error();
  std::int64_t row = 1;
  for (std::size_t i = 0; i < reduced->size(); ++i) row *= (*reduced)[i] ? x.shape[i] : 1;
  const double eb = static_cast<double>(size_of(x.dtype));
  Model md;
  md.row = row;
  md.rows = x.elements() / row;
  md.elements = x.elements();
  md.in_per_elem = eb;
  if (auto ok = reduce ? reduce_model(p, eb, md) : normalize_model(p, eb, md); !ok) {
    return ok.error();
  }
  md.chip_bytes = static_cast<double>(x.bytes()) * (1 + md.out_per_elem / eb);
  return md;
}

/// Data-movement operators (data_movement_ops): bytes read and written per output element.
[[nodiscard]] inline Result<Model> parse_data_movement(const ParseInput& p) {
  const auto& op = p.op;
  const DataMovement& dm = *data_movement(p.head());
  double written = 0;
  std::int64_t e = 0;
  for (const auto& t : op.outputs) {
    written += static_cast<double>(t.bytes());
    e += t.elements();
  }
  if (op.outputs.empty()) return p.bad("needs its output descriptions (what it writes)");
  double read = 0;
  for (const auto& t : op.inputs) read += static_cast<double>(t.bytes());
  if (!dm.reads_input) {
    read = std::min(
        read, written + (op.inputs.size() > 1 ? static_cast<double>(op.inputs[1].bytes()) : 0.0));
  }
  const double eb = static_cast<double>(size_of(op.outputs[0].dtype));
  Model md;
  md.kind = "datamove";
  md.elements = e;
  md.in_per_elem = read / static_cast<double>(e);
  md.out_per_elem = written / static_cast<double>(e);
  md.passes = dm.passes;
  md.ub_per_elem = md.in_per_elem + md.out_per_elem + (dm.passes > 1 ? eb : 0);
  md.chip_bytes = read + written;
  return md;
}

/// TransData: a copy that pads to 16-element fractals (FRACTAL_NZ, or C0 of NC1HWC0).
[[nodiscard]] inline Result<Model> parse_transdata(const ParseInput& p) {
  const auto& x = p.x();
  const Format dst = p.op.outputs.empty() ? Format::FRACTAL_NZ : p.op.outputs[0].format;
  const double eb = static_cast<double>(size_of(x.dtype));
  double pad = 1;
  if (x.shape.size() >= 2) {
    const auto r = x.shape.size();
    const bool nz = dst == Format::FRACTAL_NZ || x.format == Format::FRACTAL_NZ;
    const auto c = nz ? x.shape[r - 1] * x.shape[r - 2] : x.shape[1];
    const auto cp =
        nz ? round_up(x.shape[r - 1], 16) * round_up(x.shape[r - 2], 16) : round_up(x.shape[1], 16);
    pad = static_cast<double>(cp) / static_cast<double>(c);
  }
  Model md;
  md.kind = "transdata";
  md.elements = x.elements();
  md.in_per_elem = eb;
  md.out_per_elem = eb * pad;
  md.passes = pad;
  md.ub_per_elem = eb + eb * pad;
  md.chip_bytes = static_cast<double>(x.bytes()) * (1 + pad);
  return md;
}

/// An elementwise operator or a fused chain of them ("Add+Relu"), inputs broadcast to the output.
[[nodiscard]] inline Result<Model> parse_elementwise(const ParseInput& p) {
  const auto& x = p.x();
  const std::int64_t e = std::max(p.out_elements, x.elements());
  double in = 0;
  for (const auto& t : p.op.inputs) {
    if (e % t.elements() != 0) {
      return p.bad("inconsistent shapes: an input of " + std::to_string(t.elements()) +
                   " elements does not broadcast to " + std::to_string(e));
    }
    in += static_cast<double>(t.bytes());
  }
  const DataType od = p.op.outputs.empty() ? x.dtype : p.op.outputs[0].dtype;
  const double ob = static_cast<double>(size_of(od));
  const double wide = std::max(ob, static_cast<double>(size_of(x.dtype)));
  Model md;
  md.kind = "elementwise";
  md.elements = e;
  md.in_per_elem = in / static_cast<double>(e);
  md.out_per_elem = ob;
  md.passes = p.chain.passes * std::max(1.0, wide / 2);
  md.ub_per_elem = md.in_per_elem + ob + (p.members.size() > 1 ? wide : 0);
  md.precision_variant = p.chain.variant && wide <= 2;
  md.chip_bytes = in + static_cast<double>(e) * ob;
  return md;
}

// ---- From operator type to parser -------------------------------------------------------------

using Parser = Result<Model> (*)(const ParseInput&);

/// The parser of each operator type the simulator prices by name; Reduce*, the data-movement
/// operators and the elementwise ones are found by parser_for.
struct TypeParser {
  std::string_view type;
  Parser parse;
};
inline constexpr std::array<TypeParser, 19> type_parsers{{
    // GEMMs on the cube.
    {"MatMul", parse_matmul},
    {"MatMulV2", parse_matmul},
    {"BatchMatMul", parse_matmul},
    {"BatchMatMulV2", parse_matmul},
    {"FullyConnection", parse_matmul},
    // Convolutions on the cube (img2col).
    {"Conv2D", parse_conv},
    {"Conv2DTranspose", parse_conv},
    // A window over the input, on the vector cores.
    {"DepthwiseConv2D", parse_window},
    {"MaxPool", parse_window},
    {"AvgPool", parse_window},
    {"MaxPoolV3", parse_window},
    {"AvgPoolV2", parse_window},
    // Row ops (and Reduce*, by prefix).
    {"ArgMaxV2", parse_row_op},
    {"ArgMinV2", parse_row_op},
    {"SoftmaxV2", parse_row_op},
    {"Softmax", parse_row_op},
    {"LogSoftmaxV2", parse_row_op},
    {"LayerNorm", parse_row_op},
    // Format conversion.
    {"TransData", parse_transdata},
}};

/// The parser of the head of a (fused) operator; nullptr when the simulator has no model for it.
[[nodiscard]] inline Parser parser_for(std::string_view head) {
  for (const auto& t : type_parsers) {
    if (t.type == head) return t.parse;
  }
  if (head.starts_with("Reduce")) return parse_row_op;
  if (data_movement(head)) return parse_data_movement;
  if (elementwise_cost(head)) return parse_elementwise;
  return nullptr;
}

// ---- After the family's parser ----------------------------------------------------------------

/// Seconds of the TransData passes a MatMul's FRACTAL_NZ kernel adds for ND tensors: A and B
/// into NZ, C back to ND.
[[nodiscard]] inline double matmul_transdata_seconds(const Soc& soc, const Model& md) {
  const double a = static_cast<double>(md.batch * md.m * md.k * md.in_bytes);
  const double b = static_cast<double>((md.b_shared ? 1 : md.batch) * md.k * md.n * md.in_bytes);
  const double c = static_cast<double>(md.batch * md.m * md.n * md.out_bytes);
  const auto padded = [](std::int64_t r, std::int64_t cc) {
    return static_cast<double>(round_up(r, 16) * round_up(cc, 16)) / static_cast<double>(r * cc);
  };
  return transdata_seconds(soc, a, a * padded(md.m, md.k)) +
         transdata_seconds(soc, b, b * padded(md.k, md.n)) +
         transdata_seconds(soc, c * padded(md.m, md.n), c);
}

/// What every family shares: a cube op's fractal depth and epilogue (a bias alone costs a pass),
/// and which vector ops have a high_precision implementation to tune.
inline void finish_model(const Soc& soc, const Chain& chain, Model& md) {
  if (md.family == Family::cube) {
    md.k0 = std::max<std::int64_t>(1, soc.cube_k_bytes / md.in_bytes);
    md.epilogue_passes = chain.passes + (md.bias && chain.passes == 0 ? 1 : 0);
    md.epilogue_fixpipe_passes = chain.fixpipe_passes + (md.bias && chain.passes == 0 ? 1 : 0);
    md.precision_variant = false;
    if (md.kind == "matmul") md.format_transdata_seconds = matmul_transdata_seconds(soc, md);
  } else if (md.kind != "softmax" && md.kind != "layernorm") {
    md.precision_variant = md.precision_variant && md.kind == "elementwise";
  }
}

/// Parses and checks `op`; errors name the operator and its type.
[[nodiscard]] inline Result<Model> parse(const Soc& soc, const OperatorDesc& op) {
  const std::string who = "operator '" + op.name + "' (" + op.type + ")";
  if (auto ok = check_tensors(who, op); !ok) return ok.error();
  if (auto ok = check_int_attributes(who, op); !ok) return ok.error();
  const std::vector<std::string> members = op.members.empty() ? split_type(op.type) : op.members;
  const auto chain = fused_chain(who, members);
  if (!chain) return chain.error();
  const auto& x = op.inputs[0];
  const ParseInput p{.soc = soc,
                     .op = op,
                     .members = members,
                     .chain = *chain,
                     .who = who,
                     .out_elements = op.outputs.empty() ? x.elements() : op.outputs[0].elements()};
  const Parser parser = parser_for(p.head());
  if (!parser) {
    return make_error(Errc::unsupported,
                      who + ": the simulator has no model for '" + p.head() +
                          "' (see docs/simulator.md for the supported operator types)");
  }
  auto md = parser(p);
  if (md) finish_model(soc, *chain, *md);
  return md;
}

}  // namespace aoe::sim::detail

#endif  // AOE_MEASURE_SIMULATOR_DETAIL_PARSE_HPP
