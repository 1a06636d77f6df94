// Measurement noise for the simulator: seeded multiplicative jitter and rare outliers.
#ifndef AOE_MEASURE_SIMULATOR_NOISE_MODEL_HPP
#define AOE_MEASURE_SIMULATOR_NOISE_MODEL_HPP

#include <cstddef>
#include <cstdint>

namespace aoe::sim {

/// Off by default (`jitter == 0 && outlier_probability == 0`): the simulator is then
/// deterministic. When on, each evaluation draws `repetitions` samples
/// `t * max(0.01, 1 + jitter * N(0,1))`, each multiplied by `outlier_factor` with probability
/// `outlier_probability` (an interrupt, a frequency drop); the value is their median. Samples
/// come from a stream derived from `seed`, the configuration and an evaluation counter, so a run
/// is reproducible for a seed when evaluations happen in the same order.
struct NoiseModel {
  double jitter = 0;               ///< relative standard deviation (0.02 = 2 %)
  double outlier_probability = 0;  ///< per sample
  double outlier_factor = 3;       ///< an outlier's slowdown
  std::size_t repetitions = 5;     ///< samples per evaluation when noise is on
  std::uint64_t seed = 0;

  [[nodiscard]] bool enabled() const noexcept { return jitter > 0 || outlier_probability > 0; }
};

}  // namespace aoe::sim

#endif  // AOE_MEASURE_SIMULATOR_NOISE_MODEL_HPP
