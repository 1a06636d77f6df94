// Quality checks shared by the search-policy tests: a kernel-like landscape larger than the
// conformance ones, and the mean fraction of the optimum a policy reaches within a budget.
#ifndef AOE_TESTS_SEARCH_SEARCH_QUALITY_HPP
#define AOE_TESTS_SEARCH_SEARCH_QUALITY_HPP

#include "support/landscapes.hpp"
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace aoe::test {

/// A tiled-kernel model: block sizes (pow2), a work-per-thread factor, an unroll flag and a
/// layout; threads per block limited to 1024, failures when shared memory overflows. Smooth in
/// the tile sizes with interactions, a few percent of noise-free ruggedness, ~20k valid points.
inline Landscape tiled_kernel() {
  Landscape l;
  l.space =
      Space({pow2("block_x", 1, 256), pow2("block_y", 1, 64), range("work_x", 1, 8),
             range("work_y", 1, 8), flag("unroll"), enumeration("layout", {"nn", "nt", "tn"})},
            {product_at_most({"block_x", "block_y"}, 1024)});
  l.evaluate = [](const Space& s, const Configuration& c) {
    const double bx = std::log2(s.numeric(c, 0));
    const double by = std::log2(s.numeric(c, 1));
    const double wx = s.numeric(c, 2);
    const double wy = s.numeric(c, 3);
    const double unroll = s.numeric(c, 4);
    const double layout = s.numeric(c, 5);
    const double smem = s.numeric(c, 0) * wx * s.numeric(c, 1) * wy;
    if (smem > 8192) return Measurement::failure(Status::compile, "shared memory overflow");
    const double occupancy = std::fabs(bx + by - 8.0);
    double t = 1.0 + 0.15 * occupancy * occupancy + 0.08 * (bx - 6) * (bx - 6) / (1 + wx) +
               0.05 * (wx - 4) * (wx - 4) + 0.04 * (wy - 2) * (wy - 2) +
               0.03 * std::fabs(wx - 2 * wy) + (unroll > 0 ? -0.12 : 0.0) +
               (layout == 1   ? -0.05
                : layout == 2 ? 0.1
                              : 0.0) +
               0.02 * std::sin(3 * bx + 5 * wy + 2 * wx);
    return Measurement::success(1e-3 * t);
  };
  set_optimum_by_enumeration(l);
  return l;
}

/// optimum / best found after `budget` evaluations, per seed (0 when nothing valid was found).
template <class Make>
std::vector<double> fractions_of_optimum(const Landscape& l, Make make, std::size_t budget,
                                         std::size_t seeds, std::size_t batch = 1) {
  std::vector<double> out;
  for (std::size_t s = 0; s < seeds; ++s) {
    Tuner tuner(make(), LandscapeRunner(l.evaluate), MemoryRepository{},
                TunerOptions{.seed = 1000 + s, .batch_size = batch});
    const auto result = tuner.tune(l.space, MaxEvaluations{budget});
    out.push_back(result.found() ? l.optimum / result.best_value : 0.0);
  }
  return out;
}

inline double mean(std::span<const double> v) {
  double s = 0;
  for (const double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SEARCH_SEARCH_QUALITY_HPP
