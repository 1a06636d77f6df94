// The simulator's timing model asked directly, without running a configuration: what SGAT's
// subgraph scorer prices with it (format conversions between ND and the Cube's fractal format)
// and how it classifies operators. The model itself stays private (detail/).
#ifndef AOE_MEASURE_SIMULATOR_COSTS_HPP
#define AOE_MEASURE_SIMULATOR_COSTS_HPP

#include "aoe/measure/simulator/detail/model.hpp"
#include "aoe/measure/simulator/detail/parse.hpp"
#include "aoe/measure/simulator/soc.hpp"

#include <cstdint>
#include <string_view>

namespace aoe::sim {

/// Seconds a TransData (a format conversion on the Vector unit) that reads `in_bytes` and writes
/// `out_bytes` takes on `soc`.
[[nodiscard]] inline double transdata_seconds(const Soc& soc, double in_bytes, double out_bytes) {
  return detail::transdata_seconds(soc, in_bytes, out_bytes);
}

/// Elements of a rows x cols matrix in the fractal format (both padded to 16) per element of
/// the matrix: 1 when both are multiples of 16.
[[nodiscard]] inline double fractal_padding(std::int64_t rows, std::int64_t cols) {
  return static_cast<double>(detail::round_up(rows, 16) * detail::round_up(cols, 16)) /
         static_cast<double>(rows * cols);
}

/// Whether the timing model prices operator type `op_type` as an element-wise Vector operator.
[[nodiscard]] inline bool is_elementwise(std::string_view op_type) {
  return detail::elementwise_cost(op_type).has_value();
}

}  // namespace aoe::sim

#endif  // AOE_MEASURE_SIMULATOR_COSTS_HPP
