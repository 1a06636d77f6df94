// Percentile bootstrap confidence intervals (Efron and Tibshirani, "An Introduction to the
// Bootstrap", 1993, ch. 13) for the figures the benches print: the mean over seeded
// repetitions, and the mean over several inputs of each input's mean over its repetitions
// (each input's repetitions resampled on their own: a stratified bootstrap). The resamples
// are drawn with aoe::Rng from a fixed seed, so an interval is the same on every machine.
#ifndef AOE_MEASURE_REPLAY_BOOTSTRAP_HPP
#define AOE_MEASURE_REPLAY_BOOTSTRAP_HPP

#include "aoe/core/random.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace aoe::replay {

struct BootstrapOptions {
  std::size_t resamples = 2000;
  double level = 0.95;        ///< the interval holds this central share of the resampled means
  std::uint64_t seed = 2024;  ///< fixed: the same data give the same interval
};

/// A confidence interval; both ends NaN when there was nothing to resample.
struct Interval {
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
};

/// The percentile interval of bootstrap replicates of a statistic: their (1 - level)/2 and
/// (1 + level)/2 quantiles (linear interpolation). NaN ends when there are none or one is NaN.
[[nodiscard]] inline Interval percentile_interval(std::vector<double> replicates,
                                                  double level = 0.95) {
  if (replicates.empty()) return {};
  for (const double r : replicates) {
    if (std::isnan(r)) return {};
  }
  std::sort(replicates.begin(), replicates.end());
  const auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(replicates.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, replicates.size() - 1);
    const double w = pos - static_cast<double>(lo);
    return w == 0 ? replicates[lo] : replicates[lo] * (1 - w) + replicates[hi] * w;
  };
  const double tail = (1 - level) / 2;
  return {quantile(tail), quantile(1 - tail)};
}

/// `options.resamples` bootstrap replicates of a statistic of n observations: each draws n
/// indices in [0, n) with replacement and passes them to `statistic(std::span<const
/// std::size_t>) -> double`. Several statistics of the same repetitions can share one call
/// (or one seed) so that they see the same resamples. Empty when n is 0.
template <class Statistic>
[[nodiscard]] std::vector<double> bootstrap_replicates(std::size_t n,
                                                       const BootstrapOptions& options,
                                                       Statistic&& statistic) {
  std::vector<double> out;
  if (n == 0) return out;
  Rng rng(options.seed);
  std::vector<std::size_t> indices(n);
  out.reserve(options.resamples);
  for (std::size_t b = 0; b < options.resamples; ++b) {
    for (auto& i : indices) i = static_cast<std::size_t>(rng.below(n));
    out.push_back(statistic(std::span<const std::size_t>(indices)));
  }
  return out;
}

/// The percentile-bootstrap interval of the mean over groups of each group's mean: every
/// resample draws each group's values with replacement (as many as it has) and takes the
/// mean of the group means; the interval's ends are the (1 - level)/2 and (1 + level)/2
/// quantiles (linear interpolation) of the resampled statistics. NaN ends when `groups` is
/// empty, a group is empty, a value is not finite or `resamples` is 0.
[[nodiscard]] inline Interval bootstrap_mean_of_means(std::span<const std::vector<double>> groups,
                                                      const BootstrapOptions& options = {}) {
  if (groups.empty() || options.resamples == 0) return {};
  for (const auto& g : groups) {
    if (g.empty()) return {};
    for (const double v : g) {
      if (!std::isfinite(v)) return {};
    }
  }
  Rng rng(options.seed);
  std::vector<double> stats(options.resamples);
  for (double& stat : stats) {
    double total = 0;
    for (const auto& g : groups) {
      double sum = 0;
      for (std::size_t i = 0; i < g.size(); ++i) sum += g[rng.below(g.size())];
      total += sum / static_cast<double>(g.size());
    }
    stat = total / static_cast<double>(groups.size());
  }
  return percentile_interval(std::move(stats), options.level);
}

/// The percentile-bootstrap interval of the mean of one sample (e.g. one input's repetitions).
[[nodiscard]] inline Interval bootstrap_mean(std::span<const double> sample,
                                             const BootstrapOptions& options = {}) {
  const std::vector<double> group(sample.begin(), sample.end());
  return bootstrap_mean_of_means(std::span<const std::vector<double>>(&group, 1), options);
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_BOOTSTRAP_HPP
