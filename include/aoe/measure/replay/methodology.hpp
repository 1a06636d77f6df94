// The score of Willemsen, Schoonhoven, Filipovič, Tørring, van Nieuwpoort, van Werkhoven,
// "A methodology for comparing optimization algorithms for auto-tuning", FGCS 2024
// (doi 10.1016/j.future.2024.05.021), as implemented by AutoTuningAssociation/
// autotuning_methodology (searchspace_statistics.py: cutoff_point; baseline.py:
// get_standardised_curves; report_experiments.py: get_strategy_scores). See
// ../shared/reference/autotuning-anchors.md §2.2 and §6.1.
#ifndef AOE_MEASURE_REPLAY_METHODOLOGY_HPP
#define AOE_MEASURE_REPLAY_METHODOLOGY_HPP

#include "aoe/measure/replay/random_baseline.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace aoe::replay {

/// The FGCS 2024 case study's constants: the budget ends where random search is expected to
/// close 96% of the gap between the median and the optimum, and the score is averaged from
/// where it closes 50% (experiment_files/methodology_paper_evaluation.json:
/// cutoff_percentile 0.96, cutoff_percentile_start 0.5).
struct MethodologyOptions {
  double cutoff = 0.96;
  double cutoff_start = 0.5;
};

/// Evaluations random search without replacement needs, by the methodology's own estimate,
/// to reach `optimum + (median - optimum) (1 - p)`: with the N valid values sorted worst first
/// and i the position of the first one at most that target, ceil(i / (N + 1 - i))
/// (searchspace_statistics.py: cutoff_point). Reproduces the constants in
/// ../shared/datasets/benchmark_hub/index.json (`methodology_constants`).
[[nodiscard]] inline std::size_t cutoff_evaluations(const RandomBaseline& baseline, double p) {
  const auto& asc = baseline.sorted_values();
  const std::size_t n = asc.size();
  if (n == 0) return 0;
  const std::size_t m = n / 2;
  const double median = n % 2 == 1 ? asc[m] : (asc[m - 1] + asc[m]) / 2;
  const double target = asc.front() + (median - asc.front()) * (1 - p);
  // Worst-first position of the first value <= target = number of values above the target.
  const auto above =
      static_cast<std::size_t>(asc.end() - std::upper_bound(asc.begin(), asc.end(), target));
  const double i = static_cast<double>(above);
  return static_cast<std::size_t>(std::ceil(i / (static_cast<double>(n) + 1 - i)));
}

/// The evaluations a score averages over, inclusive: [first, last].
struct ScoreRange {
  std::size_t first = 1;
  std::size_t last = 1;
};

[[nodiscard]] inline ScoreRange score_range(const RandomBaseline& baseline,
                                            MethodologyOptions options = {}) {
  ScoreRange r;
  r.last = std::max<std::size_t>(1, cutoff_evaluations(baseline, options.cutoff));
  r.first = std::clamp<std::size_t>(cutoff_evaluations(baseline, options.cutoff_start), 1, r.last);
  return r;
}

/// The methodology score of one strategy on one space: the standardised curve
/// (strategy - random) / (optimum - random) averaged over the evaluations of `range`, where
/// `mean_best[k - 1]` is the strategy's mean best-so-far value after k evaluations over its
/// repetitions (before a repetition's first valid measurement it counts as the worst valid
/// value, as in RandomBaseline::expected_best) and random is the exact expectation of random
/// search without replacement (the package's RandomSearchCalculatedBaseline estimates the
/// same quantity by the expected index round(k (N + 1) / (k + 1))). 0 is random search, 1 the
/// optimum from the start, negative worse than random. A curve shorter than the range is
/// extended with its last value (the package's "fictional" extension of a stopped run).
/// Points where random search has certainly found the optimum are left out (0 / 0).
[[nodiscard]] inline double methodology_score(std::span<const double> mean_best,
                                              const RandomBaseline& baseline, ScoreRange range) {
  if (mean_best.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double opt = baseline.optimum();
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t k = range.first; k <= range.last; ++k) {
    const double random = baseline.expected_best(k);
    const double gap = opt - random;
    if (!(std::fabs(gap) > 1e-12 * std::max(1.0, std::fabs(opt)))) continue;
    const double strategy = mean_best[std::min(k, mean_best.size()) - 1];
    sum += (strategy - random) / gap;
    ++count;
  }
  return count == 0 ? 0.0 : sum / static_cast<double>(count);
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_METHODOLOGY_HPP
