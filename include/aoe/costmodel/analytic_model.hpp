// An analytic cost model of an operator configuration on an Ascend AI Core: a roofline with
// tiling, written from the public description of the SoC (cores, buffer capacities, per-path
// bandwidths, cube peak) and of the operator (shapes, dtypes, formats), as a user would write one
// for a real NPU. It does not call the simulator and shares none of its timing code; it does read
// the same `sim::Soc` figures the simulator is built from, so its agreement with the simulator
// overstates what it would show on a device (docs/search.md#the-analytic-cost-model).
//
// Cube operators (MatMul, BatchMatMul, Conv2D as an img2col GEMM): compute = padded fractals /
// peak plus a per-mmad issue cost; memory = the bytes each core moves from GM given its L1 tile's
// reuse, over its share of the bandwidth; L1 -> L0 and output traffic likewise; a double-buffered
// pair of stages overlaps (the longer one, plus one step of the shorter), a single-buffered pair
// adds; blocks run in ceil(blocks / cores) waves, each paying a per-block overhead. Vector
// operators stream UB tiles the same way. A tiling whose buffers do not fit is infeasible and
// predicted +infinity (ranked last).
#ifndef AOE_COSTMODEL_ANALYTIC_MODEL_HPP
#define AOE_COSTMODEL_ANALYTIC_MODEL_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

namespace detail::analytic {

[[nodiscard]] inline double cdiv(double a, double b) { return std::ceil(a / b); }

// A pair of pipeline stages of totals `a` and `b` over `n` steps: overlapped when double
// buffered (the longer stage, plus one step of the shorter to fill the pipe), else added.
[[nodiscard]] inline double pipe(double a, double b, double n, bool db) {
  if (!db || n <= 1) return a + b;
  return std::max(a, b) + std::min(a, b) / n;
}

[[nodiscard]] inline bool flag(const OperatorDesc& op, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const auto it = op.attributes.find(n);
    if (it == op.attributes.end()) continue;
    if (const auto* b = std::get_if<bool>(&it->second)) return *b;
    if (const auto* i = std::get_if<std::int64_t>(&it->second)) return *i != 0;
  }
  return false;
}

// Vector passes of an elementwise member (instruction sequences: a transcendental takes several).
[[nodiscard]] inline double passes_of(std::string_view t) {
  static constexpr std::array<std::string_view, 12> heavy{
      "Gelu", "FastGelu", "Sigmoid",  "Tanh", "Exp",       "Log",
      "Erf",  "Swish",    "Softplus", "Pow",  "SoftmaxV2", "LayerNorm"};
  for (const auto h : heavy) {
    if (t == h) return 6;
  }
  if (t == "Softmax" || t == "BatchNorm" || t == "BNInfer" || t == "Div" || t == "RealDiv" ||
      t == "Rsqrt" || t == "Sqrt" || t == "Reciprocal")
    return 3;
  return 1;
}

[[nodiscard]] inline std::vector<std::string> members_of(const OperatorDesc& op) {
  if (!op.members.empty()) return op.members;
  std::vector<std::string> out;
  std::string cur;
  for (const char c : op.type) {
    if (c == '+') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The configuration's values by role, with the model's own choice for a parameter the space
// does not tune (another knowledge kind's).
enum Role : std::uint8_t {
  block_m,
  m_l0,
  m_step,
  block_n,
  n_l0,
  n_step,
  k_l0,
  k_step,
  order,
  db_l1,
  db_l0,
  db_l0c,
  format,
  block_dim,
  ub_tile,
  db_ub,
  impl,
  roles
};
inline constexpr std::array<std::string_view, roles> role_names{
    "block_m", "m_l0",      "m_step",  "block_n",       "n_l0",     "n_step",
    "k_l0",    "k_step",    "order",   "db_l1",         "db_l0",    "db_l0c",
    "format",  "block_dim", "ub_tile", "double_buffer", "impl_mode"};

// A cube configuration's tiling: its values by role, or the model's choice for a parameter the
// space does not tune.
struct CubeTiling {
  double bm = 0, bn = 0;                        // cores along M and along N
  double ml0 = 0, nl0 = 0, kl0 = 0;             // the L0 base block
  double ms = 0, ns = 0, ks = 0;                // base blocks per L1 tile along M, N and K
  bool n_outer = false;                         // `order`: B stays resident when K fits one L1 tile
  bool dl1 = false, dl0 = false, dl0c = false;  // double buffering of L1, L0A/L0B and L0C
  bool nz = false;                              // the kernel's format is FRACTAL_NZ
};

// How a tiling splits the GEMM: per-core extents, blocks and waves, the base block actually
// used and the L1 tiles per block.
struct CubeSplit {
  double kp = 0;              // K padded to whole K0 fractals
  double mper = 0, nper = 0;  // per-core extents (whole fractals)
  double blocks = 0, waves = 0, active = 0;
  double bM = 0, bN = 0, bK = 0;  // the base block, no larger than the extents
  double nm = 0, nn = 0, nk = 0;  // L1 tiles per block along M, N and K
  double mmads = 0;
};
}  // namespace detail::analytic

/// The operator as the analytic model sees it (built once per operator, shared by copies).
struct AnalyticProblem {
  sim::Soc soc;
  bool cube = false;
  // Cube: the GEMM (Conv2D as img2col: M = N*Ho*Wo, K = Cin(padded to K0)*kh*kw, N = Cout).
  double m = 0, n = 0, k = 0, batch = 1, k0 = 16;
  double in_bytes = 2, out_bytes = 2;
  double a_read_factor = 1;  ///< GM bytes of the A operand over its im2col bytes (a feature map)
  bool tensors_nd = true;    ///< the operator's tensors are ND (a NZ kernel converts them)
  double epilogue_passes = 0;
  // Vector: elements streamed, bytes moved per element, rows (row ops) and row length.
  double elements = 0, bytes_per_element = 0, row = 0, rows = 0, passes = 1;
  bool row_op = false;
  bool tensor_nz = false;
  bool precision_variant = false;
  /// Index of each role's parameter in the space, or -1 when the space does not tune it.
  std::array<int, detail::analytic::roles> where{};
};

namespace detail::analytic {

// The message of an operator the model cannot read.
[[nodiscard]] inline ErrorInfo unreadable(const OperatorDesc& op, const std::string& why) {
  return make_error(Errc::invalid_argument,
                    "analytic cost model: operator '" + op.name + "' (" + op.type + "): " + why);
}

// Fails for an operator without an input or an output, or with a tensor of unreadable size.
[[nodiscard]] inline Result<void> check_tensors(const OperatorDesc& op) {
  if (op.inputs.empty() || op.outputs.empty())
    return unreadable(op, "it has no input or no output");
  for (const auto& t : op.inputs)
    if (t.size_problem()) return unreadable(op, "an input's " + *t.size_problem());
  for (const auto& t : op.outputs)
    if (t.size_problem()) return unreadable(op, "an output's " + *t.size_problem());
  return {};
}

// What every operator has: element sizes, the cube's K fractal, the fused members' passes and
// whether its tensors are ND.
inline void read_operands(const OperatorDesc& op, const std::vector<std::string>& members,
                          AnalyticProblem& p) {
  p.in_bytes = static_cast<double>(std::max<std::size_t>(1, size_of(op.inputs[0].dtype)));
  p.out_bytes = static_cast<double>(std::max<std::size_t>(1, size_of(op.outputs[0].dtype)));
  p.k0 = std::max(1.0, static_cast<double>(p.soc.cube_k_bytes) / p.in_bytes);
  for (std::size_t i = 1; i < members.size(); ++i) p.epilogue_passes += passes_of(members[i]);
  for (const auto& t : op.inputs) p.tensors_nd = p.tensors_nd && t.format != Format::FRACTAL_NZ;
}

// A matrix product: M and N from the output, K from the first input (transposed or not), the
// batch from the output's leading dimensions.
[[nodiscard]] inline Result<void> read_matmul(const OperatorDesc& op, AnalyticProblem& p) {
  const auto& x = op.inputs[0];
  const auto& y = op.outputs[0];
  if (op.inputs.size() < 2 || x.shape.size() < 2 || y.shape.size() < 2)
    return unreadable(op, "a matrix product needs two inputs of rank >= 2");
  const bool ta = flag(op, {"transpose_a", "transpose_x1", "adj_x1"});
  const std::size_t r = x.shape.size();
  p.cube = true;
  p.m = static_cast<double>(y.shape[y.shape.size() - 2]);
  p.n = static_cast<double>(y.shape.back());
  p.k = static_cast<double>(ta ? x.shape[r - 2] : x.shape[r - 1]);
  p.batch = 1;
  for (std::size_t i = 0; i + 2 < y.shape.size(); ++i) p.batch *= static_cast<double>(y.shape[i]);
  return {};
}

// Where N, C, H and W are in a 4-D (or NC1HWC0) tensor's shape.
struct NchwAxes {
  std::size_t n = 0, c = 1, h = 2, w = 3;
};

[[nodiscard]] inline NchwAxes nchw_axes(const TensorDesc& t) {
  if (t.format == Format::NHWC) return {.n = 0, .c = 3, .h = 1, .w = 2};
  return {};
}

// A channel count: C, times C0 in NC1HWC0.
[[nodiscard]] inline double channels(const TensorDesc& t, std::size_t c) {
  double out = static_cast<double>(t.shape[c]);
  if (t.format == Format::NC1HWC0 && t.shape.size() == 5) out *= static_cast<double>(t.shape[4]);
  return out;
}

// Conv2D as an img2col GEMM: M = N*Ho*Wo, K = Cin (padded to K0) * kh*kw, N = Cout.
[[nodiscard]] inline Result<void> read_conv2d(const OperatorDesc& op, AnalyticProblem& p) {
  const auto& x = op.inputs[0];
  const auto& y = op.outputs[0];
  if (op.inputs.size() < 2 || x.shape.size() < 4 || y.shape.size() < 4)
    return unreadable(op, "Conv2D needs an input and a filter of rank >= 4");
  const NchwAxes ya = nchw_axes(y), xa = nchw_axes(x);
  const double cout = channels(y, ya.c);
  const double ho = static_cast<double>(y.shape[ya.h]), wo = static_cast<double>(y.shape[ya.w]);
  const double cin = channels(x, xa.c);
  const double hw_in = static_cast<double>(x.shape[xa.h]) * static_cast<double>(x.shape[xa.w]);
  const double taps =
      std::max(1.0, static_cast<double>(op.inputs[1].elements()) / std::max(1.0, cout * cin));
  p.cube = true;
  p.batch = 1;
  p.m = static_cast<double>(y.shape[ya.n]) * ho * wo;
  p.n = cout;
  p.k = std::ceil(cin / p.k0) * p.k0 * taps;
  // The feature map is read (img2col happens on chip): its bytes with a halo, at most the
  // im2col matrix's.
  p.a_read_factor = std::min(1.0, 1.25 * hw_in / std::max(1.0, ho * wo * taps));
  p.tensors_nd = false;  // convolutions consume 5-D / fractal layouts natively
  return {};
}

// A row operator's rows: LayerNorm's from begin_norm_axis on, a reduction's `axes` (all by
// default), a softmax's `axes` (the last by default).
inline void read_rows(const OperatorDesc& op, const std::string& head, AnalyticProblem& p) {
  const auto& x = op.inputs[0];
  p.row_op = true;
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  std::vector<std::int64_t> axes;
  if (head == "LayerNorm") {
    auto b = attribute_ints(op, "begin_norm_axis", {-1}).front();
    if (b < 0) b += rank;
    for (std::int64_t a = std::max<std::int64_t>(0, b); a < rank; ++a) axes.push_back(a);
  } else {
    std::vector<std::int64_t> all;
    for (std::int64_t a = 0; a < rank; ++a) all.push_back(a);
    axes = attribute_ints(op, "axes",
                          head.starts_with("Reduce") ? all : std::vector<std::int64_t>{-1});
  }
  double row = 1;
  for (auto a : axes) {
    if (a < 0) a += rank;
    if (a >= 0 && a < rank) row *= static_cast<double>(x.shape[static_cast<std::size_t>(a)]);
  }
  p.row = std::max(1.0, row);
  p.rows = std::max(1.0, static_cast<double>(x.elements()) / p.row);
}

// A vector operator: streams the largest tensor through UB.
inline void read_vector(const OperatorDesc& op, const std::vector<std::string>& members,
                        AnalyticProblem& p) {
  const std::string& head = members.front();
  double bytes = 0, in_elements = 0;
  for (const auto& t : op.inputs) {
    bytes += static_cast<double>(t.bytes());
    in_elements = std::max(in_elements, static_cast<double>(t.elements()));
  }
  for (const auto& t : op.outputs) bytes += static_cast<double>(t.bytes());
  const double out_elements = static_cast<double>(op.outputs[0].elements());
  const bool window = in_elements > out_elements * 1.5 && !head.starts_with("Reduce") &&
                      head != "LayerNorm" && !head.starts_with("Softmax");
  // A pool or depthwise convolution streams output elements, each reading its window.
  p.elements = window ? out_elements : std::max(in_elements, out_elements);
  p.bytes_per_element = bytes / std::max(1.0, p.elements);
  p.passes = 0;
  for (const auto& mbr : members) p.passes += passes_of(mbr);
  if (window) p.passes += in_elements / std::max(1.0, out_elements);  // the window's taps
  p.tensor_nz = op.inputs[0].format == Format::FRACTAL_NZ;
  p.precision_variant = p.where[impl] >= 0;
  const bool softmax = head == "SoftmaxV2" || head == "Softmax";
  if (softmax || head == "LayerNorm" || head.starts_with("Reduce")) read_rows(op, head, p);
}

// The operator's shape as a GEMM (MatMul, BatchMatMul, Conv2D) or as a stream (the others).
[[nodiscard]] inline Result<void> read_shape(const OperatorDesc& op,
                                             const std::vector<std::string>& members,
                                             AnalyticProblem& p) {
  const std::string& head = members.front();
  const bool matmul = head == "MatMul" || head == "MatMulV2" || head == "FullyConnection";
  const bool bmm = head == "BatchMatMul" || head == "BatchMatMulV2";
  if (matmul || bmm) return read_matmul(op, p);
  if (head == "Conv2D") return read_conv2d(op, p);
  read_vector(op, members, p);
  if (p.elements <= 0) return unreadable(op, "it has no elements");
  return {};
}

// Each level's value, per dimension of `space`: numbers as themselves, text levels as 0/1 (see
// `AnalyticCostModel::value`).
[[nodiscard]] inline std::vector<std::vector<double>> level_values(const Space& space) {
  std::vector<std::vector<double>> out;
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    const Parameter& par = space.parameter(d);
    std::vector<double> lv(par.size());
    for (std::uint32_t i = 0; i < par.size(); ++i) {
      const Value& v = par.level(i);
      if (v.is_number()) {
        lv[i] = v.as_real();
      } else {
        const auto& t = v.as_text();
        lv[i] = t == "n_outer" || t == "FRACTAL_NZ" || t == "high_precision" ? 1 : 0;
      }
    }
    out.push_back(std::move(lv));
  }
  return out;
}

}  // namespace detail::analytic

/// The analytic cost model. `predict_seconds` is the model itself; `fit`/`predict` make it an
/// `aoe::cost_model`: `fit` rescales the predictions by the median ratio of measured to
/// predicted time over the correct trials (the ranking is the model's: calibration only changes
/// the scale) and `predict` returns a measured configuration's measurement itself.
class AnalyticCostModel {
 public:
  /// Name of an `Evolutionary<AnalyticCostModel>` search (its provenance).
  static constexpr std::string_view evolutionary_name = "evolutionary-analytic";

  AnalyticCostModel() = default;

  /// The model of `op` on `soc`, for configurations of `space` (its parameters by name). Fails
  /// with `Errc::unsupported` for an operator type it has no model for and
  /// `Errc::invalid_argument` for shapes it cannot read (naming the operator).
  [[nodiscard]] static Result<AnalyticCostModel> create(const sim::Soc& soc, const OperatorDesc& op,
                                                        const Space& space) {
    using namespace detail::analytic;
    auto p = std::make_shared<AnalyticProblem>();
    p->soc = soc;
    p->where.fill(-1);
    for (std::size_t r = 0; r < roles; ++r) {
      if (const auto d = space.index_of(role_names[r])) p->where[r] = static_cast<int>(*d);
    }
    if (auto ok = check_tensors(op); !ok) return ok.error();
    const auto members = members_of(op);
    read_operands(op, members, *p);
    if (auto ok = read_shape(op, members, *p); !ok) return ok.error();
    AnalyticCostModel model;
    model.p_ = std::move(p);
    model.levels_ = level_values(space);
    return model;
  }

  /// Predicted seconds of configuration `c` (indices into the space given to `create`), or
  /// +infinity when its buffers do not fit (or its format has no kernel on this SoC).
  [[nodiscard]] double predict_seconds(const Configuration& c) const {
    return p_->cube ? cube(c) : vector(c);
  }

  /// The problem the model was built for.
  [[nodiscard]] const AnalyticProblem& problem() const noexcept { return *p_; }

  void fit(SpaceView view, std::span<const Trial> history) {
    (void)view;
    std::vector<double> ratios;
    measured_.clear();
    for (const auto& t : history) {
      if (!t.measurement.ok() || !(t.measurement.value > 0)) continue;
      measured_.push_back({t.configuration, t.measurement.value});
      const double pr = predict_seconds(t.configuration);
      if (std::isfinite(pr) && pr > 0) ratios.push_back(t.measurement.value / pr);
    }
    scale_ = 1;
    if (!ratios.empty()) {
      auto mid = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
      std::nth_element(ratios.begin(), mid, ratios.end());
      scale_ = *mid;
    }
  }

  [[nodiscard]] std::vector<Prediction> predict(std::span<const Configuration> queries) const {
    std::vector<Prediction> out;
    out.reserve(queries.size());
    for (const auto& q : queries) {
      const auto it = std::find_if(measured_.begin(), measured_.end(),
                                   [&](const auto& m) { return m.first == q; });
      out.push_back({it != measured_.end() ? it->second : scale_ * predict_seconds(q), 0});
    }
    return out;
  }

 private:
  // The value of role `r` in `c`: numbers as themselves, text levels as 0/1 (order: n_outer 1;
  // format: FRACTAL_NZ 1; impl_mode: high_precision 1), flags 0/1; `fallback` when the space
  // does not tune it.
  [[nodiscard]] double value(const Configuration& c, detail::analytic::Role r,
                             double fallback) const {
    const int d = p_->where[r];
    if (d < 0 || static_cast<std::size_t>(d) >= c.size()) return fallback;
    const auto& lv = levels_[static_cast<std::size_t>(d)];
    return c[static_cast<std::size_t>(d)] < lv.size() ? lv[c[static_cast<std::size_t>(d)]]
                                                      : fallback;
  }

  // See the file comment. Cycles per block, then seconds.
  [[nodiscard]] double cube(const Configuration& c) const {
    using namespace detail::analytic;
    const AnalyticProblem& p = *p_;
    const sim::Soc& s = p.soc;
    const CubeTiling t = cube_tiling(c);
    if (!t.nz && !s.mte2_nd2nz && p.tensors_nd) return inf();  // no ND kernel without ND->NZ MTE2
    if (!cube_fits(t)) return inf();
    const CubeSplit g = cube_split(t);
    const double in = p.in_bytes;
    const double steps = g.nm * g.nn * g.nk;
    // Cube: padded fractals at the peak rate, plus one issue cost per mmad.
    const double compute =
        (g.mper / 16) * (g.nper / 16) * (g.kp / p.k0) / std::max(1e-9, s.cube_fractals_per_cycle) +
        g.mmads * s.mmad_overhead_cycles;
    const auto [from_gm, from_l2] = cube_panel_bytes(t, g);
    const double ghz = s.frequency_ghz;
    double rate = std::min(s.gm_read, s.gm_bandwidth / (g.active * ghz * 1e9));
    if (!t.nz) rate *= s.nd2nz_efficiency;
    const double mte2 = from_gm / std::max(1e-9, rate) + from_l2 / std::max(1e-9, s.l2_read);
    // L1 -> L0: the cheaper of keeping the A or the B base block resident.
    const double a_l1 = g.mper * g.kp * in, b_l1 = g.kp * g.nper * in;
    const double mte1 =
        std::min(a_l1 * g.nn / s.l1_to_l0a + b_l1 * cdiv(g.mper, g.bM) / s.l1_to_l0b,
                 a_l1 * cdiv(g.nper, g.bN) / s.l1_to_l0a + b_l1 * g.nm / s.l1_to_l0b);
    // Output: FixPipe (A2) or L0C -> UB -> GM (coupled).
    const double out_rate = s.split ? std::min(s.fixpipe, s.gm_write)
                                    : std::min({s.l0c_to_ub / 2, s.ub_to_gm, s.gm_write});
    const double out = g.mper * g.nper * p.out_bytes / std::max(1e-9, out_rate) +
                       g.mper * g.nper * p.out_bytes * p.epilogue_passes / s.vector_bytes_per_cycle;
    const double inner = pipe(mte1, compute, g.mmads, t.dl0);
    const double l1 = pipe(mte2, inner, steps, t.dl1);
    const double block = pipe(l1, out, g.nm * g.nn, t.dl0c) + s.block_overhead_cycles;
    double seconds = g.waves * block / (ghz * 1e9);
    // The chip's bandwidth caps everything together.
    const double chip = g.blocks * (from_gm + g.mper * g.nper * p.out_bytes) / s.gm_bandwidth;
    seconds = std::max(seconds, chip) + s.launch_overhead_seconds;
    if (t.nz && p.tensors_nd) seconds += transdata_seconds();
    return seconds;
  }

  // The tiling of `c`. Defaults for parameters of another knowledge kind: all cores along the
  // longer side, 128x128 base blocks, 64-byte baseK x 4 steps, ping-pong L1 and L0.
  [[nodiscard]] detail::analytic::CubeTiling cube_tiling(const Configuration& c) const {
    using namespace detail::analytic;
    const AnalyticProblem& p = *p_;
    const sim::Soc& s = p.soc;
    CubeTiling t;
    t.bm = value(c, block_m, 0);
    t.bn = value(c, block_n, 0);
    if (t.bm <= 0 || t.bn <= 0) {
      const double cores = std::max(1, s.cube_cores);
      const double mf = cdiv(p.m, 16), nf = cdiv(p.n, 16);
      t.bm = std::min(cores, mf);
      t.bn = std::max(1.0, std::min(std::floor(cores / t.bm), nf));
    }
    t.ml0 = value(c, m_l0, 128);
    t.nl0 = value(c, n_l0, 128);
    t.kl0 = value(c, k_l0, std::max(p.k0, 32.0 / p.in_bytes * 4));
    t.ms = value(c, m_step, 1);
    t.ns = value(c, n_step, 1);
    t.ks = value(c, k_step, 4);
    t.n_outer = value(c, order, 0) > 0.5;
    t.dl1 = value(c, db_l1, 1) > 0.5;
    t.dl0 = value(c, db_l0, 1) > 0.5;
    t.dl0c = value(c, db_l0c, 0) > 0.5;
    const bool nd_default = p.tensors_nd && s.mte2_nd2nz;
    t.nz = value(c, format, nd_default ? 0 : 1) > 0.5;
    return t;
  }

  // Whether the buffers fit, as the tiling allocates them (a double-buffered one counts twice).
  [[nodiscard]] bool cube_fits(const detail::analytic::CubeTiling& t) const {
    const sim::Soc& s = p_->soc;
    const double in = p_->in_bytes;
    const double l1m = t.ml0 * t.ms, l1n = t.nl0 * t.ns, l1k = t.kl0 * t.ks;
    if (t.ml0 * t.kl0 * in * (t.dl0 ? 2 : 1) > static_cast<double>(s.l0a_bytes)) return false;
    if (t.nl0 * t.kl0 * in * (t.dl0 ? 2 : 1) > static_cast<double>(s.l0b_bytes)) return false;
    if (l1m * l1n * 4 * (t.dl0c ? 2 : 1) > static_cast<double>(s.l0c_bytes)) return false;
    if ((l1m * l1k + l1k * l1n) * in * (t.dl1 ? 2 : 1) > static_cast<double>(s.l1_bytes))
      return false;
    return true;
  }

  // Per-core extents (whole fractals), the blocks the split makes, and the tiles of a block.
  [[nodiscard]] detail::analytic::CubeSplit cube_split(
      const detail::analytic::CubeTiling& t) const {
    using detail::analytic::cdiv;
    const AnalyticProblem& p = *p_;
    const double cores = std::max(1, p.soc.cube_cores);
    const double mf = cdiv(p.m, 16), nf = cdiv(p.n, 16);
    detail::analytic::CubeSplit g;
    g.kp = cdiv(p.k, p.k0) * p.k0;
    g.mper = cdiv(mf, t.bm) * 16;
    g.nper = cdiv(nf, t.bn) * 16;
    g.blocks = p.batch * cdiv(mf, g.mper / 16) * cdiv(nf, g.nper / 16);
    g.waves = cdiv(g.blocks, cores);
    g.active = std::min(g.blocks, cores);
    // The tile actually used: a base block no larger than the per-core extent.
    g.bM = std::min(t.ml0, g.mper);
    g.bN = std::min(t.nl0, g.nper);
    g.bK = std::min(t.kl0, g.kp);
    const double tM = std::min(t.ml0 * t.ms, g.mper), tN = std::min(t.nl0 * t.ns, g.nper);
    const double tK = std::min(t.kl0 * t.ks, g.kp);
    g.nm = cdiv(g.mper, tM);
    g.nn = cdiv(g.nper, tN);
    g.nk = cdiv(g.kp, tK);
    g.mmads = cdiv(g.mper, g.bM) * cdiv(g.nper, g.bN) * cdiv(g.kp, g.bK);
    return g;
  }

  // GM -> L1 bytes of a block, {from GM, from L2}: each operand's panel once per tile of the
  // other side, unless K fits one L1 tile and `order` keeps that operand resident. Blocks of one
  // wave that share a panel (the blocks of an M row share A, of an N column B) fetch it from GM
  // once and the others from L2; a block's re-reads hit L2 when the wave's panels fit the usable
  // L2.
  [[nodiscard]] std::pair<double, double> cube_panel_bytes(
      const detail::analytic::CubeTiling& t, const detail::analytic::CubeSplit& g) const {
    const AnalyticProblem& p = *p_;
    const sim::Soc& s = p.soc;
    const double in = p.in_bytes;
    const double a_bytes = g.mper * g.kp * in * p.a_read_factor, b_bytes = g.kp * g.nper * in;
    double a_reads = g.nn, b_reads = g.nm;
    if (g.nk <= 1) {
      if (t.n_outer) {
        b_reads = 1;
      } else {
        a_reads = 1;
      }
    }
    const double share_a = std::max(1.0, std::min(t.bn, g.active));
    const double share_b = std::max(1.0, std::min(t.bm, g.active / share_a));
    const double wave_panels = (g.active / share_a) * a_bytes + (g.active / share_b) * b_bytes;
    const bool fits_l2 = wave_panels <= s.l2_usable_fraction * static_cast<double>(s.l2_bytes);
    double from_gm = a_bytes / share_a + b_bytes / share_b;
    double from_l2 = a_bytes * (1 - 1 / share_a) + b_bytes * (1 - 1 / share_b);
    const double again = a_bytes * (a_reads - 1) + b_bytes * (b_reads - 1);
    (fits_l2 ? from_l2 : from_gm) += again;
    return {from_gm, from_l2};
  }

  // A NZ kernel on ND tensors: TransData of A, B and C, each a launch and a GM pass.
  [[nodiscard]] double transdata_seconds() const {
    const AnalyticProblem& p = *p_;
    const sim::Soc& s = p.soc;
    const double bytes =
        p.batch * (p.m * p.k + p.k * p.n) * p.in_bytes + p.batch * p.m * p.n * p.out_bytes;
    return 3 * s.launch_overhead_seconds +
           2 * bytes / (s.gm_bandwidth * std::max(1e-9, s.transdata_efficiency));
  }

  [[nodiscard]] double vector(const Configuration& c) const {
    using namespace detail::analytic;
    const AnalyticProblem& p = *p_;
    const sim::Soc& s = p.soc;
    const double cores = std::max(1, s.vector_op_cores());
    const double unit = p.row_op ? p.row : 16;
    const double units = p.row_op ? p.rows : cdiv(p.elements, 16);
    const double bd = std::max(1.0, value(c, block_dim, std::min(cores, units)));
    const bool db = value(c, db_ub, 1) > 0.5;
    const bool precise = value(c, impl, 0) > 0.5;
    const double per_elem = p.bytes_per_element + (precise ? 4.0 : 0.0);
    double tile = value(c, ub_tile, 0);
    if (tile <= 0) {
      tile = 256;
      while (tile * 2 * per_elem * 2 <= static_cast<double>(s.ub_bytes)) tile *= 2;
    }
    if (tile * per_elem * (db ? 2 : 1) > static_cast<double>(s.ub_bytes)) return inf();
    const double per_core = cdiv(units, bd) * unit;
    const double active = std::min(cores, cdiv(units, cdiv(units, bd)));
    const double tiles = cdiv(per_core, tile);
    const double ghz = s.vector_op_frequency_ghz();
    const double rate = std::min(s.gm_read, s.gm_bandwidth / (active * ghz * 1e9));
    double bytes = per_core * p.bytes_per_element;
    if (p.row_op && p.row > tile) bytes *= 2;  // a row longer than the tile is read twice
    const double mte = bytes / std::max(1e-9, rate);
    double passes = p.passes * (precise ? 2 : 1) + (precise ? 2 : 0);
    const bool nz = value(c, format, p.tensor_nz ? 1 : 0) > 0.5;
    if (p.row_op && nz) passes += 1;  // the cross-fractal pass of a NZ row op
    double lanes = 1;
    if (p.row_op && !nz && p.row < 16) lanes = 16 / p.row;  // short ND rows waste lanes
    const double repeats = per_core * 2 * lanes / s.vector_bytes_per_cycle;
    const double compute =
        repeats * passes + tiles * passes *
                               std::ceil(1 + tile * 2 / s.vector_bytes_per_cycle / 255) *
                               s.vector_instruction_overhead_cycles;
    double seconds = (pipe(mte, compute, tiles, db) + s.block_overhead_cycles) / (ghz * 1e9) +
                     s.launch_overhead_seconds;
    seconds = std::max(seconds, p.elements * p.bytes_per_element / s.gm_bandwidth);
    if (p.row_op && nz != p.tensor_nz) {
      // The kernel's format differs from its tensor's: TransData in front and behind.
      seconds += 2 * s.launch_overhead_seconds +
                 4 * p.elements * p.bytes_per_element / (s.gm_bandwidth * s.transdata_efficiency);
    }
    return seconds;
  }

  [[nodiscard]] static double inf() noexcept { return std::numeric_limits<double>::infinity(); }

  std::shared_ptr<const AnalyticProblem> p_;
  std::vector<std::vector<double>> levels_;  // each level's value, per dimension
  std::vector<std::pair<Configuration, double>> measured_;
  double scale_ = 1;
};

}  // namespace aoe

#endif  // AOE_COSTMODEL_ANALYTIC_MODEL_HPP
