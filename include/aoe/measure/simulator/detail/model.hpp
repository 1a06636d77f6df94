// Private: the simulator's operator models (parsing an OperatorDesc into per-op constants),
// their tuning spaces, heuristics and the timing model. See docs/simulator.md.
#ifndef AOE_MEASURE_SIMULATOR_DETAIL_MODEL_HPP
#define AOE_MEASURE_SIMULATOR_DETAIL_MODEL_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/simulator/knowledge.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/constraint.hpp"
#include "aoe/space/parameter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::sim::detail {

/// Every tunable quantity of every family; a runner maps each to a space dimension or a fixed
/// default.
enum Role : std::uint8_t {
  block_m,    ///< cores along M (cube)
  block_n,    ///< cores along N (cube)
  m_l0,       ///< baseM
  n_l0,       ///< baseN
  k_l0,       ///< baseK
  m_step,     ///< base blocks of M per L1 tile (stepM)
  n_step,     ///< stepN
  k_step,     ///< base K blocks per L1 tile (stepKa = stepKb)
  order,      ///< 0: M outer (iterateOrder 0), 1: N outer
  db_l1,      ///< L1 ping-pong (AL1/BL1_pbuffer = 2)
  db_l0,      ///< L0A/L0B ping-pong
  db_l0c,     ///< L0C ping-pong
  block_dim,  ///< cores (vector)
  ub_tile,    ///< elements per UB tile (vector)
  db_ub,      ///< UB double buffering (BUFFER_NUM = 2)
  format,     ///< 0: ND, 1: FRACTAL_NZ (the format the kernel consumes)
  impl,       ///< 0: high_performance, 1: high_precision
  role_count
};
using Values = std::array<std::int64_t, role_count>;

inline constexpr std::array<const char*, role_count> role_names{
    "block_m",   "block_n", "m_l0",          "n_l0",   "k_l0",     "m_step",
    "n_step",    "k_step",  "order",         "db_l1",  "db_l0",    "db_l0c",
    "block_dim", "ub_tile", "double_buffer", "format", "impl_mode"};

[[nodiscard]] constexpr Knowledge knowledge_of(Role r) noexcept {
  if (r == format) return Knowledge::format;
  if (r == impl) return Knowledge::impl;
  return Knowledge::schedule;
}

enum class Family : std::uint8_t { cube, vector };
enum class Buffer : std::uint8_t { none, l0a, l0b, l0c, l1, ub, format };

inline constexpr std::array<const char*, 7> buffer_names{"",   "L0A", "L0B",   "L0C",
                                                         "L1", "UB",  "format"};

/// The result of timing one configuration: seconds, or the buffer that overflowed.
struct Outcome {
  double seconds = 0;
  Buffer buffer = Buffer::none;
  std::int64_t need = 0;
  std::int64_t capacity = 0;
};

[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) noexcept {
  return (a + b - 1) / b;
}
[[nodiscard]] constexpr std::int64_t round_up(std::int64_t a, std::int64_t b) noexcept {
  return ceil_div(a, b) * b;
}

/// Vector cost of one op type, in 256-byte repeats per 256 bytes of fp16 data (1 = one pass of
/// a simple instruction). Transcendentals are several instructions (TBE/Ascend C expand them);
/// the counts are the instruction sequences' lengths, not published cycle counts [I].
[[nodiscard]] inline std::optional<double> elementwise_cost(std::string_view t) {
  struct Entry {
    std::string_view name;
    double passes;
  };
  static constexpr std::array<Entry, 59> table{{
      {"Add", 1},
      {"AddV2", 1},
      {"Sub", 1},
      {"Mul", 1},
      {"Maximum", 1},
      {"Minimum", 1},
      {"Relu", 1},
      {"ReluV2", 1},
      {"Abs", 1},
      {"Neg", 1},
      {"Muls", 1},
      {"Adds", 1},
      {"BiasAdd", 1},
      {"Square", 1},
      {"Cast", 1},
      {"LeakyRelu", 2},
      {"Relu6", 2},
      {"ClipByValue", 2},
      {"BatchNorm", 2},
      {"BNInfer", 2},
      {"Div", 4},
      {"RealDiv", 4},
      {"Reciprocal", 3},
      {"Sqrt", 3},
      {"Rsqrt", 3},
      {"Exp", 4},
      {"Log", 4},
      {"Sigmoid", 7},
      {"Tanh", 9},
      {"Gelu", 14},
      {"FastGelu", 8},
      {"Swish", 8},
      {"Erf", 10},
      {"Softplus", 9},
      {"Pow", 9},
      {"SquaredDifference", 2},
      // Operators of imported (ONNX) models; passes as for the ones above: a compare or
      // select is one pass, a piecewise-linear function a few, a transcendental many.
      {"HardSigmoid", 3},
      {"HardSwish", 4},
      {"PRelu", 2},
      {"Elu", 6},
      {"Selu", 7},
      {"Softsign", 4},
      {"Mish", 12},
      {"Floor", 1},
      {"Ceil", 1},
      {"Round", 1},
      {"Sign", 1},
      {"Sin", 9},
      {"Cos", 9},
      {"LogicalNot", 1},
      {"LogicalAnd", 1},
      {"LogicalOr", 1},
      {"Equal", 1},
      {"Less", 1},
      {"Greater", 1},
      {"LessEqual", 1},
      {"GreaterEqual", 1},
      {"Select", 1},
      {"AddN", 1},
  }};
  for (const auto& e : table) {
    if (e.name == t) return e.passes;
  }
  return std::nullopt;
}

/// Whether high_precision differs from high_performance for the op (transcendentals computed
/// in fp32 instead of fp16).
[[nodiscard]] inline bool has_precision_variant(std::string_view t) {
  return t == "Gelu" || t == "FastGelu" || t == "Sigmoid" || t == "Tanh" || t == "Exp" ||
         t == "Log" || t == "Erf" || t == "Swish" || t == "Softplus" || t == "Pow" ||
         t == "SoftmaxV2" || t == "LayerNorm" || t == "Rsqrt" || t == "Sqrt" || t == "Div" ||
         t == "RealDiv";
}

/// A parsed operator: everything the timing model needs, computed once in create().
struct Model {
  Family family = Family::vector;
  std::string kind;  ///< "matmul", "conv", "elementwise", "reduce", "softmax", ...
  // ---- cube (GEMM view; a convolution is img2col: M = N*Ho*Wo, K = Cin*kh*kw, N = Cout) ----
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  std::int64_t in_bytes = 2, out_bytes = 2;
  std::int64_t k0 = 16;    ///< fractal depth in elements
  double a_gm_factor = 1;  ///< conv: input bytes per im2col byte (halo reuse), <= 1
  bool b_shared = false;   ///< BatchMatMul with a 2-D right operand (read once)
  bool bias = false;
  double epilogue_passes = 0;  ///< vector passes per output element (Relu, BN, Gelu, Add ...)
  double epilogue_fixpipe_passes = 0;  ///< of which FixPipe does for free on A2 (Relu, bias, BN)
  double extra_input_bytes = 0;        ///< residual operand read in the epilogue
  bool cube_formats = false;           ///< ND/NZ choice meaningful (MatMul family with ND tensors)
  bool tensors_nd = false;             ///< the graph gives ND tensors (conversion needed for NZ)
  // ---- vector ----
  std::int64_t elements = 0;  ///< output elements (elementwise) or rows*row (row ops)
  std::int64_t row = 0;       ///< row length of a row op (reduce/softmax/layernorm); 0 else
  std::int64_t rows = 0;
  double in_per_elem = 0;    ///< GM bytes read per processed element
  double out_per_elem = 0;   ///< GM bytes written per processed element
  double passes = 0;         ///< vector passes per element (fp16 units)
  double ub_per_elem = 0;    ///< UB bytes per tile element (inputs, outputs, temporaries)
  double compute_bytes = 2;  ///< element width the vector unit computes in
  bool precision_variant = false;
  bool softmax_formats = false;         ///< SoftmaxV2: ND vs FRACTAL_NZ kernel
  bool tensor_nz = false;               ///< the tensor's format is FRACTAL_NZ
  double format_transdata_seconds = 0;  ///< one TransData pass over the op's input and output
  double chip_bytes = 0;                ///< unique GM bytes (for the chip cap of vector ops)
  bool reduce_op = false;               ///< a reduction (a long row is accumulated, not re-read)
  bool row_lanes = false;               ///< softmax/layernorm: short rows waste vector lanes
};

}  // namespace aoe::sim::detail

#endif  // AOE_MEASURE_SIMULATOR_DETAIL_MODEL_HPP
