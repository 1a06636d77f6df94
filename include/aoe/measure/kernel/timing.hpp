// Where a kernel configuration's measurement time went, and the time limit a run must keep:
// shared by the OpenCL and CUDA runners (and written into Kernel Tuner cache files).
#ifndef AOE_MEASURE_KERNEL_TIMING_HPP
#define AOE_MEASURE_KERNEL_TIMING_HPP

#include <algorithm>
#include <limits>

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

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_TIMING_HPP
