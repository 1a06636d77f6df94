// The statistics of an experiment's repetitions: curves, milestones, bootstrap replicates and
// the methodology score of one strategy on one problem (aoe/experiment/run.hpp).
#ifndef AOE_EXPERIMENT_DETAIL_SUMMARISE_HPP
#define AOE_EXPERIMENT_DETAIL_SUMMARISE_HPP

#include "aoe/core/random.hpp"
#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/measure/replay/bootstrap.hpp"
#include "aoe/measure/replay/methodology.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace aoe::experiment::detail {

inline constexpr double inf = std::numeric_limits<double>::infinity();

// Linear-interpolation quantile (numpy's default) of sorted values; infinities sort last.
inline double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double w = pos - static_cast<double>(lo);
  if (w == 0 || sorted[lo] == sorted[hi]) return sorted[lo];
  if (std::isinf(sorted[hi])) return inf;
  return sorted[lo] * (1 - w) + sorted[hi] * w;
}

// The fraction of the optimum `opt` that a best value `v` reaches (0 before the first valid one).
inline double fraction_of(double opt, double v) { return std::isinf(v) ? 0.0 : opt / v; }

// The curves over k = 1..min(length, budget): the best value's mean (nothing found yet counted
// as `worst`), median and quartiles, and the same of the fraction of the optimum.
inline void add_curves(StrategyResult& s, const std::vector<std::vector<double>>& runs,
                       std::size_t length, std::size_t budget, double opt, double worst) {
  const std::size_t n = runs.size();
  std::vector<double> column(n);
  std::vector<double> fractions(n);
  // The curves cover the budget; the run may be longer (the score's range).
  for (std::size_t k = 0; k < length && k < budget; ++k) {
    double sum = 0;
    for (std::size_t r = 0; r < n; ++r) {
      column[r] = runs[r][k];
      fractions[r] = fraction_of(opt, runs[r][k]);
      sum += std::isinf(runs[r][k]) ? worst : runs[r][k];
    }
    std::sort(column.begin(), column.end());
    std::sort(fractions.begin(), fractions.end());
    s.best_mean.push_back(sum / static_cast<double>(n));
    s.best_median.push_back(quantile(column, 0.5));
    s.best_q1.push_back(quantile(column, 0.25));
    s.best_q3.push_back(quantile(column, 0.75));
    double fsum = 0;
    for (const double f : fractions) fsum += f;
    s.fraction_mean.push_back(fsum / static_cast<double>(n));
    s.fraction_median.push_back(quantile(fractions, 0.5));
    s.fraction_q1.push_back(quantile(fractions, 0.25));
    s.fraction_q3.push_back(quantile(fractions, 0.75));
  }
}

// The fractions of the optimum whose evaluations to reach them are reported.
inline constexpr double milestones[] = {0.95, 0.98, 0.99};

// Per run, the evaluations after which its best reaches `p` of the optimum `opt` (infinity
// when it does not within `length`).
inline std::vector<double> evaluations_to_reach(const std::vector<std::vector<double>>& runs,
                                                std::size_t length, double opt, double p) {
  std::vector<double> reached(runs.size(), inf);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (std::size_t k = 0; k < length; ++k) {
      if (fraction_of(opt, runs[r][k]) >= p) {
        reached[r] = static_cast<double>(k + 1);
        break;
      }
    }
  }
  return reached;
}

// The mean fraction of the optimum at each report point (NaN beyond the run) and the median
// evaluations to reach 95%, 98% and 99% of it.
inline void add_milestones(StrategyResult& s, const std::vector<std::vector<double>>& runs,
                           std::size_t length, std::size_t budget, double opt) {
  const std::size_t n = runs.size();
  for (const std::size_t k : report_points(budget)) {
    if (k == 0 || k > length) {
      s.fraction_of_optimum[k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    double sum = 0;
    for (std::size_t r = 0; r < n; ++r) sum += fraction_of(opt, runs[r][k - 1]);
    s.fraction_of_optimum[k] = sum / static_cast<double>(n);
  }
  for (const double p : milestones) {
    std::vector<double> reached = evaluations_to_reach(runs, length, opt, p);
    std::sort(reached.begin(), reached.end());
    const double m = quantile(reached, 0.5);
    s.evaluations_to[p] = std::isinf(m) ? std::nullopt : std::optional<double>(m);
  }
}

// Bootstrap over the repetitions: every figure sees the same resamples (one seed per input and
// strategy, from their names): replicates of the fractions at the report points, of the
// median run's evaluations to reach each milestone (within the run's `length`) and of the
// methodology score.
inline void add_bootstrap(StrategyResult& s, const Problem& problem,
                          const std::vector<std::vector<double>>& runs, const Settings& settings,
                          replay::ScoreRange range, std::span<const double> random_curve,
                          std::size_t length) {
  const std::size_t n = runs.size();
  const double opt = problem.optimum();
  std::uint64_t stream = 0xcbf29ce484222325ULL;  // FNV-1a of "input/strategy"
  for (const char ch : problem.name + "/" + s.name) {
    stream = (stream ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  }
  replay::BootstrapOptions boot = settings.bootstrap;
  boot.seed = derive_seed(settings.bootstrap.seed, stream);
  for (const auto& [k, f] : s.fraction_of_optimum) {
    if (std::isnan(f)) continue;
    std::vector<double> per_run(n);
    for (std::size_t r = 0; r < n; ++r) per_run[r] = fraction_of(opt, runs[r][k - 1]);
    s.fraction_replicates[k] =
        replay::bootstrap_replicates(n, boot, [&](std::span<const std::size_t> idx) {
          double sum = 0;
          for (const std::size_t i : idx) sum += per_run[i];
          return sum / static_cast<double>(idx.size());
        });
  }
  std::vector<double> resampled(n);
  for (const double p : milestones) {
    const std::vector<double> reached = evaluations_to_reach(runs, length, opt, p);
    s.evaluations_to_replicates[p] =
        replay::bootstrap_replicates(n, boot, [&](std::span<const std::size_t> idx) {
          for (std::size_t i = 0; i < n; ++i) resampled[i] = reached[idx[i]];
          std::sort(resampled.begin(), resampled.end());
          return quantile(resampled, 0.5);
        });
  }
  std::vector<std::vector<double>> ranks;
  ranks.reserve(n);
  for (const auto& run : runs) ranks.push_back(replay::rank_curve(run, problem.baseline, range));
  std::vector<double> mean_ranks(random_curve.size());
  s.score_replicates = replay::bootstrap_replicates(n, boot, [&](std::span<const std::size_t> idx) {
    std::fill(mean_ranks.begin(), mean_ranks.end(), 0.0);
    for (const std::size_t i : idx) {
      for (std::size_t j = 0; j < mean_ranks.size(); ++j) mean_ranks[j] += ranks[i][j];
    }
    for (double& m : mean_ranks) m /= static_cast<double>(idx.size());
    return replay::methodology_score_from_ranks(mean_ranks, problem.baseline, range, random_curve);
  });
}

/// Settings::objective pareto: the mean hypervolume over the repetitions at each report point
/// up to the budget, and its bootstrap replicates (resampled as the fractions are).
inline void add_hypervolumes(StrategyResult& s, const Problem& problem,
                             const std::vector<std::vector<double>>& per_run,
                             const Settings& settings) {
  if (settings.objective.kind != ObjectiveKind::pareto || per_run.empty()) return;
  std::uint64_t stream = 0x84222325cbf29ce4ULL;  // FNV-1a of "input/strategy/hypervolume"
  for (const char ch : problem.name + "/" + s.name + "/hypervolume") {
    stream = (stream ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  }
  replay::BootstrapOptions boot = settings.bootstrap;
  boot.seed = derive_seed(settings.bootstrap.seed, stream);
  std::vector<std::size_t> points;  // as front_hypervolumes computes them
  for (const std::size_t k : report_points(settings.budget)) {
    if (k <= settings.budget) points.push_back(k);
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::vector<double> at(per_run.size());
    for (std::size_t r = 0; r < per_run.size(); ++r) {
      at[r] = i < per_run[r].size() ? per_run[r][i] : 0.0;
    }
    double sum = 0;
    for (const double h : at) sum += h;
    s.hypervolume[points[i]] = sum / static_cast<double>(at.size());
    s.hypervolume_replicates[points[i]] =
        replay::bootstrap_replicates(at.size(), boot, [&](std::span<const std::size_t> idx) {
          double total = 0;
          for (const std::size_t j : idx) total += at[j];
          return total / static_cast<double>(idx.size());
        });
  }
}

inline StrategyResult summarise(const Problem& problem, const std::string& name,
                                const std::vector<std::vector<double>>& runs,
                                std::vector<std::size_t> evaluations, const Settings& settings,
                                replay::ScoreRange range, std::span<const double> random_curve,
                                std::size_t length) {
  StrategyResult s;
  s.name = name;
  s.repeats = runs.size();
  s.budget = settings.budget;
  s.run_length = length;
  s.score_range = range;
  s.evaluations_run = std::move(evaluations);
  add_curves(s, runs, length, settings.budget, problem.optimum(), problem.baseline.worst());
  add_milestones(s, runs, length, settings.budget, problem.optimum());
  s.score = replay::methodology_score(runs, problem.baseline, range, random_curve);
  add_bootstrap(s, problem, runs, settings, range, random_curve, length);
  return s;
}

}  // namespace aoe::experiment::detail

#endif  // AOE_EXPERIMENT_DETAIL_SUMMARISE_HPP
