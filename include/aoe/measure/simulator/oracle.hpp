// The exhaustive oracle: the true optimum of a simulator runner's space, by enumeration.
#ifndef AOE_MEASURE_SIMULATOR_ORACLE_HPP
#define AOE_MEASURE_SIMULATOR_ORACLE_HPP

#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <atomic>
#include <cstddef>
#include <limits>

namespace aoe::sim {

/// The optimum of a space and how many configurations were looked at.
struct OracleResult {
  Configuration best;  ///< the fastest configuration (the first in enumeration order on ties)
  double value = std::numeric_limits<double>::infinity();  ///< its simulated seconds
  std::size_t valid = 0;      ///< configurations that compiled (fit every buffer)
  std::size_t evaluated = 0;  ///< configurations enumerated (satisfying the constraints)
};

/// How many times `oracle` was called in this process: the oracle only scores (benches, tests);
/// a test checks that a job never calls it.
[[nodiscard]] inline std::atomic<std::size_t>& oracle_calls() noexcept {
  static std::atomic<std::size_t> calls{0};
  return calls;
}

/// Enumerates every configuration of `runner.space()` that satisfies its constraints (the
/// space's lazy Enumerator) and times each without noise. Spaces of ~10^6 points take well
/// under a second. An empty `best` means no configuration fits.
[[nodiscard]] inline OracleResult oracle(const Runner<device::Simulator>& runner) {
  oracle_calls().fetch_add(1, std::memory_order_relaxed);
  OracleResult r;
  Space::Enumerator e = runner.space().enumerate();
  Configuration c;
  while (e.next(c)) {
    ++r.evaluated;
    const auto o = runner.time(c);
    if (o.buffer != detail::Buffer::none) continue;
    ++r.valid;
    if (o.seconds < r.value) {
      r.value = o.seconds;
      r.best = c;
    }
  }
  return r;
}

}  // namespace aoe::sim

#endif  // AOE_MEASURE_SIMULATOR_ORACLE_HPP
