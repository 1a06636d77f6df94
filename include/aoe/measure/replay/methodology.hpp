// The score of Willemsen, Schoonhoven, Filipovič, Tørring, van Nieuwpoort, van Werkhoven,
// "A methodology for comparing optimization algorithms for auto-tuning", FGCS 2024
// (doi 10.1016/j.future.2024.05.021), as implemented by AutoTuningAssociation/
// autotuning_methodology (searchspace_statistics.py: cutoff_point; baseline.py:
// get_standardised_curves; report_experiments.py: get_strategy_scores). See
// docs/research.md#the-methodology-score.
#ifndef AOE_MEASURE_REPLAY_METHODOLOGY_HPP
#define AOE_MEASURE_REPLAY_METHODOLOGY_HPP

#include "aoe/core/assert.hpp"
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
  /// Whether the budget counts failed configurations as draws, as the random baseline and
  /// every policy here do (a failed configuration costs an evaluation). false computes it over
  /// the valid values only, as the package's cutoff_point does (and as the
  /// `methodology_constants` of ../shared/datasets/benchmark_hub/index.json are); the two
  /// differ only on spaces with failures, by about their share.
  bool count_failures = true;
};

/// Evaluations random search without replacement needs, by the methodology's own estimate,
/// to reach `optimum + (median - optimum) (1 - p)` (median and optimum of the valid values):
/// with the N configurations sorted worst first and i the position of the first one at most
/// that target, ceil(i / (N + 1 - i)) (searchspace_statistics.py: cutoff_point). With
/// `count_failures` the N configurations are the whole population, failed ones worst; without,
/// the valid ones only, which reproduces the constants in
/// ../shared/datasets/benchmark_hub/index.json (`methodology_constants`).
[[nodiscard]] inline std::size_t cutoff_evaluations(const RandomBaseline& baseline, double p,
                                                    bool count_failures = true) {
  const auto& asc = baseline.sorted_values();
  const std::size_t valid = asc.size();
  if (valid == 0) return 0;
  const std::size_t m = valid / 2;
  const double median = valid % 2 == 1 ? asc[m] : (asc[m - 1] + asc[m]) / 2;
  const double target = asc.front() + (median - asc.front()) * (1 - p);
  // Worst-first position of the first value <= target = number of configurations above it.
  auto above =
      static_cast<std::size_t>(asc.end() - std::upper_bound(asc.begin(), asc.end(), target));
  std::size_t n = valid;
  if (count_failures) {
    n = std::max(baseline.population(), valid);
    above += n - valid;
  }
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
  r.last = std::max<std::size_t>(
      1, cutoff_evaluations(baseline, options.cutoff, options.count_failures));
  r.first = std::clamp<std::size_t>(
      cutoff_evaluations(baseline, options.cutoff_start, options.count_failures), 1, r.last);
  return r;
}

/// Random search's curve over `range` for `methodology_score`: at each k the valid value at
/// its exact expected rank (O(V) per point; compute it once per space and reuse it for every
/// strategy).
[[nodiscard]] inline std::vector<double> random_curve(const RandomBaseline& baseline,
                                                      ScoreRange range) {
  std::vector<double> out;
  for (std::size_t k = range.first; k <= range.last; ++k) {
    out.push_back(baseline.value_at_rank(baseline.expected_rank(k)));
  }
  return out;
}

/// The methodology score of one strategy on one space, from its repetitions' best-so-far
/// curves (`runs[r][k - 1]`: the best value repetition r had found after k evaluations,
/// infinity while it had found nothing valid). At each k of `range` the strategy's curve is
/// the valid value at the mean `RandomBaseline::rank` of the repetitions' bests, random
/// search's the value at its exact expected rank (`RandomBaseline::expected_rank`), and the
/// standardised curve (strategy - random) / (optimum - random) is averaged over the range.
/// 0 is random search, 1 the optimum from the start, negative worse than random.
///
/// Averaging positions in the sorted values rather than the values themselves is what the
/// package does (curves.py maps each best to its index in the distribution, then takes the
/// median index over fevals or an isotonic fit of the indices over time, and looks the value
/// up): on spaces whose slow configurations are orders of magnitude slower than the median,
/// a mean of values is dominated by the rare repetition stuck in that tail and the score
/// swings by hundreds. The mean position (rather than the median) keeps random search itself
/// at 0 in expectation, since its exact expected rank is the reference. A curve shorter than
/// the range is extended with its last value (the package's "fictional" extension of a
/// stopped run); a repetition with an empty curve counts as having found nothing. Points where
/// random search has certainly found the optimum are left out (0 / 0). `random_values` is
/// `random_curve(baseline, range)`.
[[nodiscard]] inline double methodology_score(std::span<const std::vector<double>> runs,
                                              const RandomBaseline& baseline, ScoreRange range,
                                              std::span<const double> random_values);

/// One repetition's `RandomBaseline::rank` at each k of `range` (its best after k evaluations;
/// infinity, the worst rank, while it has found nothing), as `methodology_score` averages it.
[[nodiscard]] inline std::vector<double> rank_curve(const std::vector<double>& run,
                                                    const RandomBaseline& baseline,
                                                    ScoreRange range) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> out;
  out.reserve(range.last - range.first + 1);
  for (std::size_t k = range.first; k <= range.last; ++k) {
    out.push_back(baseline.rank(run.empty() ? inf : run[std::min(k, run.size()) - 1]));
  }
  return out;
}

/// `methodology_score` from the mean over the repetitions of their `rank_curve`s
/// (`mean_ranks[k - range.first]`): what a bootstrap over repetitions re-scores cheaply.
[[nodiscard]] inline double methodology_score_from_ranks(std::span<const double> mean_ranks,
                                                         const RandomBaseline& baseline,
                                                         ScoreRange range,
                                                         std::span<const double> random_values) {
  AOE_ASSERT(random_values.size() == range.last - range.first + 1 &&
                 mean_ranks.size() == random_values.size(),
             "methodology_score_from_ranks: one mean rank and one random value per k of range");
  if (baseline.valid() == 0) return std::numeric_limits<double>::quiet_NaN();
  const double opt = baseline.optimum();
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t k = range.first; k <= range.last; ++k) {
    const double random = random_values[k - range.first];
    const double gap = opt - random;
    if (!(std::fabs(gap) > 1e-12 * std::max(1.0, std::fabs(opt)))) continue;
    const double strategy = baseline.value_at_rank(mean_ranks[k - range.first]);
    sum += (strategy - random) / gap;
    ++count;
  }
  return count == 0 ? 0.0 : sum / static_cast<double>(count);
}

inline double methodology_score(std::span<const std::vector<double>> runs,
                                const RandomBaseline& baseline, ScoreRange range,
                                std::span<const double> random_values) {
  AOE_ASSERT(random_values.size() == range.last - range.first + 1,
             "methodology_score: random_values must be random_curve(baseline, range)");
  if (runs.empty() || baseline.valid() == 0) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> mean_ranks(random_values.size(), 0.0);
  for (const auto& run : runs) {
    const auto ranks = rank_curve(run, baseline, range);
    for (std::size_t i = 0; i < ranks.size(); ++i) mean_ranks[i] += ranks[i];
  }
  for (double& r : mean_ranks) r /= static_cast<double>(runs.size());
  return methodology_score_from_ranks(mean_ranks, baseline, range, random_values);
}

/// The same, computing random search's curve on the way.
[[nodiscard]] inline double methodology_score(std::span<const std::vector<double>> runs,
                                              const RandomBaseline& baseline, ScoreRange range) {
  const auto random = random_curve(baseline, range);
  return methodology_score(runs, baseline, range, random);
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_METHODOLOGY_HPP
