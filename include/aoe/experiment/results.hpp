// What an experiment gives: per input, per strategy, the figures over the repetitions
// (`StrategyResult`), as the JSON, the table and the plot show them (docs/research.md).
#ifndef AOE_EXPERIMENT_RESULTS_HPP
#define AOE_EXPERIMENT_RESULTS_HPP

#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/measure/replay/methodology.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aoe::experiment {

/// What one strategy did on one problem over all repetitions.
struct StrategyResult {
  std::string name;
  std::size_t repeats = 0;
  std::size_t budget = 0;
  std::size_t run_length = 0;  ///< evaluations each repetition ran: max(budget, score cutoff)
  replay::ScoreRange score_range{};
  double score = 0;
  /// Mean over the repetitions of optimum / best after k evaluations (0 before the first
  /// valid one), for each k of interest; NaN beyond the run.
  std::map<std::size_t, double> fraction_of_optimum;
  /// Median over the repetitions of the evaluations to reach this fraction of the optimum;
  /// nullopt when more than half the repetitions never reached it within the run.
  std::map<double, std::optional<double>> evaluations_to;
  // Curves over k = 1..budget. Values: infinity where nothing valid was found yet.
  std::vector<double> best_median, best_q1, best_q3;
  std::vector<double> best_mean;  ///< "nothing found yet" counted as the worst valid value
  std::vector<double> fraction_mean, fraction_median, fraction_q1, fraction_q3;
  std::vector<std::size_t> evaluations_run;  ///< per repetition (fewer: exhausted or timed out)
  /// Per repetition, with Settings::traces: what it evaluated, in order.
  std::vector<Trace> traces;
  /// Bootstrap replicates over the repetitions (Settings::bootstrap; the same resamples for
  /// every figure): of `fraction_of_optimum` at each of its points, of `evaluations_to` at each
  /// fraction (infinity where the resample's median run did not reach it within the run), and
  /// of `score`. Their percentile interval is the figure's 95% interval; averaged replicate by
  /// replicate over inputs, they give the interval of a mean over inputs (each input resampled
  /// on its own).
  std::map<std::size_t, std::vector<double>> fraction_replicates;
  std::map<double, std::vector<double>> evaluations_to_replicates;
  std::vector<double> score_replicates;
  /// Settings::objective pareto: at each report point, the mean over the repetitions of the
  /// found front's hypervolume over the recorded front's (docs/energy.md), and its bootstrap
  /// replicates.
  std::map<std::size_t, double> hypervolume;
  std::map<std::size_t, std::vector<double>> hypervolume_replicates;
};

/// What every strategy did on one problem, in the order of the strategies.
struct ProblemResult {
  const Problem* problem = nullptr;
  std::vector<StrategyResult> strategies;
};

/// The evaluations at which fractions of the optimum are reported: 25, 50, 100, 200, budget.
[[nodiscard]] inline std::vector<std::size_t> report_points(std::size_t budget) {
  std::vector<std::size_t> points{25, 50, 100, 200};
  if (std::find(points.begin(), points.end(), budget) == points.end()) points.push_back(budget);
  return points;
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_RESULTS_HPP
