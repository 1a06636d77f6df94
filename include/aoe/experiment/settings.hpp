// What an experiment is asked for (`Settings`) and what one repetition gives (`Repetition`):
// the options of `aoe::experiment::run` and of `aoe-bench` (docs/research.md).
#ifndef AOE_EXPERIMENT_SETTINGS_HPP
#define AOE_EXPERIMENT_SETTINGS_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/replay/bootstrap.hpp"
#include "aoe/measure/replay/methodology.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/vocab/objective.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace aoe::experiment {

/// What one repetition measured (Settings::traces): per evaluation in order, the configuration,
/// the value (NaN: it failed) and the device seconds charged; the wall seconds of the run (the
/// policy's own time: a replayed measurement is a lookup). A function of the seed, except
/// `seconds`. With a pareto objective, `energies` too: each evaluation's joules (NaN: it failed
/// or has none); empty otherwise.
struct Trace {
  std::vector<double> values, costs, energies;
  double seconds = 0;
  std::vector<Configuration> configurations;
};

/// What one repetition (one strategy, one input, one seed) gives: the best value after each
/// evaluation, and how many evaluations ran. A function of the repetition's index alone.
struct Repetition {
  std::vector<double> curve;
  /// Settings::objective pareto: at each report point (report_points(budget)) that the run
  /// reached, the hypervolume of its front so far over the recorded front's.
  std::vector<double> hypervolume;
  std::uint64_t evaluations = 0;
  Trace trace;   ///< empty unless Settings::traces
  int rank = 0;  ///< the MPI rank that ran it (0 without MPI); no part of the results
};

/// Runs `count` repetitions and returns them in index order: `one(j)` computes repetition j
/// (it may run on another MPI rank). An error (naming the repetition)
/// stops the experiment; an empty optional: this process is not the one that summarises
/// (an MPI worker rank), and `run` returns no results.
using RepetitionRunner = std::function<Result<std::optional<std::vector<Repetition>>>(
    std::size_t count, const std::function<Repetition(std::size_t)>& one)>;

/// What an experiment runs: the budget, the repetitions and their seeds, the score's options
/// and where the repetitions run.
struct Settings {
  std::size_t budget = 100;              ///< unique evaluations per repetition
  std::optional<double> budget_seconds;  ///< charged device seconds per repetition
  std::size_t repeats = 30;
  std::uint64_t seed = 0;
  std::size_t threads = 0;  ///< 0: every core
  replay::MethodologyOptions methodology{};
  /// Caps the evaluations the score averages over (0: no cap). Each repetition runs
  /// max(budget, score cutoff) evaluations; on spaces whose cutoff is in the thousands this
  /// bounds the cost, and the JSON's `score_evaluations` shows the range used.
  std::size_t max_score_evaluations = 0;
  /// The policies that take initial configurations (annealing, evolutionary, bayesian,
  /// ensemble; a user's policy through its factory's `SearchStart`) measure each input's
  /// `Problem::defaults` first, as a tuner started from a runner's default does; grid and random
  /// search never do (they are the baselines).
  bool start_from_default = false;
  /// The same policies measure each input's `Problem::transfer` first (after its defaults).
  bool transfer = false;
  /// What the tuner minimises (TunerOptions::objective). Pareto: every repetition also scores
  /// its front by hypervolume against the input's recorded front (StrategyResult::hypervolume);
  /// every input must have one (a recording with energy). The curves stay the time's.
  Objective objective{};
  /// Keep every repetition's evaluations (Trace) in StrategyResult::traces, for tools that score
  /// the runs themselves (bench/peers).
  bool traces = false;
  /// Called after each repetition with (repetitions done, total), from the worker threads but
  /// never by two at once; for a progress display. Empty: nothing is called.
  std::function<void(std::size_t, std::size_t)> on_progress{};
  /// The 95% percentile-bootstrap intervals over the repetitions (`StrategyResult::*_replicates`):
  /// resamples and level; each input and strategy draws its resamples from a seed derived from
  /// this seed and their names, so an interval does not depend on the other inputs of the run.
  replay::BootstrapOptions bootstrap{};
  /// Where the repetitions run. Empty: `threads` threads of this process. aoe-bench under
  /// mpirun: spread over the ranks.
  RepetitionRunner run_repetitions{};
};

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_SETTINGS_HPP
