// Interleaved measurement: the candidates a bench compares measured in rounds, each round every
// candidate once in a shuffled order, so that a machine whose speed drifts during the run
// slows all of them alike instead of deciding the comparison. Medians over the rounds with
// bootstrap intervals, and ratios paired by round (the drift cancels in each round's ratio).
#ifndef AOE_BENCH_SUPPORT_INTERLEAVED_HPP
#define AOE_BENCH_SUPPORT_INTERLEAVED_HPP

#include <aoe/measure/replay/bootstrap.hpp>
#include <aoe/measure/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace aoe_bench {

/// One candidate: `seconds()` measures it once (its own warm-up and timed runs; the figure of
/// one round, e.g. the median of its runs), nullopt when it failed.
struct Contender {
  std::string name;
  std::function<std::optional<double>()> seconds;
};

/// `seconds[c][r]`: round r's figure of contender c (NaN where it failed).
struct Interleaved {
  std::vector<std::vector<double>> seconds;
};

/// `rounds` rounds; each measures every contender once, in an order shuffled per round
/// (seeded: the same seed, the same orders).
[[nodiscard]] inline Interleaved interleave(std::span<const Contender> contenders,
                                            std::size_t rounds, std::uint64_t seed) {
  Interleaved out;
  out.seconds.assign(contenders.size(),
                     std::vector<double>(rounds, std::numeric_limits<double>::quiet_NaN()));
  std::vector<std::size_t> order(contenders.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(seed);
  for (std::size_t r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (const std::size_t c : order) {
      if (const auto s = contenders[c].seconds()) out.seconds[c][r] = *s;
    }
  }
  return out;
}

/// A median and its 95 % percentile-bootstrap interval (NaN when nothing was measured).
struct MedianInterval {
  double median = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
};

[[nodiscard]] inline MedianInterval median_interval(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  MedianInterval out;
  if (values.empty()) return out;
  out.median = aoe::median(values);
  std::vector<double> resample(values.size());
  const auto replicates = aoe::replay::bootstrap_replicates(
      values.size(), {}, [&](std::span<const std::size_t> indices) {
        for (std::size_t i = 0; i < indices.size(); ++i) resample[i] = values[indices[i]];
        return aoe::median(resample);
      });
  const auto interval = aoe::replay::percentile_interval(replicates);
  out.low = interval.low;
  out.high = interval.high;
  return out;
}

/// `f` applied to each round's pair (rounds where either failed are left out).
[[nodiscard]] inline std::vector<double> paired(std::span<const double> a,
                                                std::span<const double> b,
                                                const std::function<double(double, double)>& f) {
  std::vector<double> out;
  for (std::size_t r = 0; r < std::min(a.size(), b.size()); ++r) {
    if (std::isfinite(a[r]) && std::isfinite(b[r]) && b[r] > 0) out.push_back(f(a[r], b[r]));
  }
  return out;
}

}  // namespace aoe_bench

#endif  // AOE_BENCH_SUPPORT_INTERLEAVED_HPP
