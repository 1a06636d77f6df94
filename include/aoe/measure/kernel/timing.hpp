// Where a kernel configuration's measurement time went, and the time limit a run must keep:
// shared by the OpenCL and CUDA runners (and written into Kernel Tuner cache files).
#ifndef AOE_MEASURE_KERNEL_TIMING_HPP
#define AOE_MEASURE_KERNEL_TIMING_HPP

#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aoe::kernel {

/// Seconds spent on one configuration, for Kernel Tuner cache files.
struct Timing {
  double compile_seconds = 0;       ///< building the program (this configuration's share)
  double verification_seconds = 0;  ///< the checked run and the comparison
  double benchmark_seconds = 0;     ///< the warm-up and timed runs (wall)
};

/// The longest a run may take, in seconds, given the best time measured so far: `factor` times
/// the best (never below `floor`; off when `factor` is 0 or nothing was measured), capped by
/// `hard_limit` (0: none). Infinity when neither applies.
[[nodiscard]] inline double time_limit(double best, double factor, double floor,
                                       double hard_limit) noexcept {
  double limit = std::numeric_limits<double>::infinity();
  if (factor > 0 && best < std::numeric_limits<double>::infinity()) {
    limit = std::max(floor, factor * best);
  }
  if (hard_limit > 0) limit = std::min(limit, hard_limit);
  return limit;
}

/// The failure of a run that took `seconds`, over `limit`.
[[nodiscard]] inline Measurement timeout_failure(double seconds, double limit) {
  return Measurement::failure(Status::timeout, "a run took " + std::to_string(seconds) +
                                                   " s, over the limit of " +
                                                   std::to_string(limit) + " s");
}

/// The runs after a configuration's checked run (which counts as the first warm-up run):
/// `warmup - 1` more untimed runs, then `repetitions` timed ones (at least one), each by
/// `run(seconds)`, which returns a failed measurement or nullopt and sets the run's seconds.
/// The timed runs' seconds go to `samples`. A failure or a run over `limit` (`timeout`) ends
/// them: the failure is returned, holding the samples so far.
template <class Run>
[[nodiscard]] std::optional<Measurement> timed_runs(std::size_t warmup, std::size_t repetitions,
                                                    double limit, Run&& run,
                                                    std::vector<double>& samples) {
  const std::size_t untimed = warmup > 0 ? warmup - 1 : 0;
  const std::size_t timed = std::max<std::size_t>(1, repetitions);
  for (std::size_t i = 0; i < untimed + timed; ++i) {
    double t = 0;
    std::optional<Measurement> failed = run(t);
    if (!failed && t > limit) failed = timeout_failure(t, limit);
    if (failed) {
      failed->samples = std::move(samples);
      return failed;
    }
    if (i >= untimed) samples.push_back(t);
  }
  return std::nullopt;
}

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_TIMING_HPP
