// aoe-bench's experiment: inputs (recorded spaces), strategies by name, seeded repetitions run
// in parallel, and the statistics of their best-so-far curves.
#ifndef AOE_TOOLS_AOE_BENCH_EXPERIMENT_HPP
#define AOE_TOOLS_AOE_BENCH_EXPERIMENT_HPP

#include <aoe/core/error.hpp>
#include <aoe/measure/replay/bootstrap.hpp>
#include <aoe/measure/replay/methodology.hpp>
#include <aoe/measure/replay/random_baseline.hpp>
#include <aoe/measure/replay/recording.hpp>
#include <aoe/space/configuration.hpp>
#include <aoe/space/space.hpp>
#include <aoe/vocab/measurement.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace aoe_bench {

/// A space to tune whose every valid value is known: what the statistics need.
struct Problem {
  std::string name;
  std::string source;                              ///< the file or operator it came from
  std::shared_ptr<const aoe::Space> space_holder;  ///< keeps `space` alive when not recorded
  std::shared_ptr<const aoe::replay::Recording> recording;  ///< replay inputs
  const aoe::Space* space = nullptr;
  /// Measures a batch (thread-safe; the same configuration always gives the same result).
  std::function<std::vector<aoe::Measurement>(aoe::SpaceView, std::span<const aoe::Configuration>)>
      measure;
  aoe::replay::RandomBaseline baseline;  ///< every valid value, and the population
  /// The input's own default configuration, if it has one (a simulator operator's built-in
  /// heuristic; recorded spaces have none): what `Settings::start_from_default` starts from.
  std::vector<aoe::Configuration> defaults;
  /// Configurations measured first when `Settings::transfer` is on: the best recorded
  /// configurations of the other inputs with the same parameters (other devices), interleaved
  /// by rank (`add_transfer`).
  std::vector<aoe::Configuration> transfer;
  std::vector<std::string> transfer_sources;  ///< the inputs `transfer` came from
  std::size_t configurations = 0;             ///< configurations of the space (failed included)
  std::size_t valid_configurations = 0;       ///< of which measured correctly
  [[nodiscard]] double optimum() const { return baseline.optimum(); }
};

/// A recorded space from a Kernel Tuner cache or T4 results file (.json or .json.gz).
/// `cartesian`: the space is the Cartesian product of the recorded parameter values, and each
/// configuration the file does not hold (it violated the kernel's restrictions) is a failure
/// that costs an evaluation (status `constraints`, no device time): the counting of the TEVC
/// 2022 benchmark (Schoonhoven et al.), where most of a space may fail. The name gets
/// "@cartesian".
[[nodiscard]] aoe::Result<Problem> load_problem(const std::string& input, bool cartesian = false);

/// Transfer across devices, leaving each input's own recording out: for every recorded
/// problem, `Problem::transfer` becomes the `top` best configurations of each other recorded
/// problem with the same parameters (same names and values, so the same kernel recorded on
/// other devices), rank 1 of every source first, then rank 2, ..., without repeats.
void add_transfer(std::vector<Problem>& problems, std::size_t top);

/// The operator spaces of the reference simulator named by `sim:<workload>[@<SoC>]`:
/// <workload> is an operator of include/aoe/measure/simulator/workloads.hpp by name
/// ("res2a_branch2b", "attention/self/query"), or a group: resnet50 (its convolutions and
/// fc), resnet50-conv, bert-matmul; <SoC> one of aoe::sim::Soc::builtin_names() (default
/// Ascend910A). Every value is known by enumeration, as aoe::sim::oracle does.
[[nodiscard]] aoe::Result<std::vector<Problem>> load_simulator_problems(const std::string& spec);

/// What one repetition (one strategy, one input, one seed) gives: the best value after each
/// evaluation, and how many evaluations ran. A function of the repetition's index alone.
/// What one repetition measured (Settings::traces): per evaluation in order, the value (NaN:
/// it failed) and the device seconds charged; the wall seconds of the run (the policy's own
/// time: a replayed measurement is a lookup). A function of the seed, except `seconds`.
struct Trace {
  std::vector<double> values, costs;
  double seconds = 0;
};

struct Repetition {
  std::vector<double> curve;
  std::uint64_t evaluations = 0;
  Trace trace;   ///< empty unless Settings::traces
  int rank = 0;  ///< the MPI rank that ran it (0 without MPI); no part of the results
};

/// Runs `count` repetitions and returns them in index order: `one(j)` computes repetition j
/// (it may run on another MPI rank: repetitions.hpp). An error (naming the repetition)
/// stops the experiment; an empty optional: this process is not the one that summarises
/// (an MPI worker rank), and run_experiment returns no results.
using RepetitionRunner = std::function<aoe::Result<std::optional<std::vector<Repetition>>>(
    std::size_t count, const std::function<Repetition(std::size_t)>& one)>;

struct Settings {
  std::size_t budget = 100;              ///< unique evaluations per repetition
  std::optional<double> budget_seconds;  ///< charged device seconds per repetition
  std::size_t repeats = 30;
  std::uint64_t seed = 0;
  std::size_t threads = 0;  ///< 0: every core
  aoe::replay::MethodologyOptions methodology{};
  /// Caps the evaluations the score averages over (0: no cap). Each repetition runs
  /// max(budget, score cutoff) evaluations; on spaces whose cutoff is in the thousands this
  /// bounds the cost, and the JSON's `score_evaluations` shows the range used.
  std::size_t max_score_evaluations = 0;
  /// The policies that take initial configurations (annealing, evolutionary, bayesian,
  /// ensemble) measure each input's `Problem::defaults` first, as a tuner started from a
  /// runner's default does; grid and random search never do (they are the baselines).
  bool start_from_default = false;
  /// The same policies measure each input's `Problem::transfer` first (after its defaults).
  bool transfer = false;
  /// Keep every repetition's evaluations (Trace) in StrategyResult::traces, for tools that score
  /// the runs themselves (bench/peers).
  bool traces = false;
  /// Called after each repetition with (repetitions done, total), from the worker threads but
  /// never by two at once; for a progress display. Empty: nothing is called.
  std::function<void(std::size_t, std::size_t)> on_progress{};
  /// The 95% percentile-bootstrap intervals over the repetitions (`StrategyResult::*_replicates`):
  /// resamples and level; each input and strategy draws its resamples from a seed derived from
  /// this seed and their names, so an interval does not depend on the other inputs of the run.
  aoe::replay::BootstrapOptions bootstrap{};
  /// Where the repetitions run. Empty: `threads` threads of this process. aoe-bench under
  /// mpirun: spread over the ranks (repetitions.hpp).
  RepetitionRunner run_repetitions{};
};

/// What one strategy did on one problem over all repetitions.
struct StrategyResult {
  std::string name;
  std::size_t repeats = 0;
  std::size_t budget = 0;
  std::size_t run_length = 0;  ///< evaluations each repetition ran: max(budget, score cutoff)
  aoe::replay::ScoreRange score_range{};
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
};

struct ProblemResult {
  const Problem* problem = nullptr;
  std::vector<StrategyResult> strategies;
};

/// Runs every strategy on every problem, `repeats` times each (repetition r seeded with
/// derive_seed(seed, r)), on `threads` threads or with `settings.run_repetitions`. The numbers
/// depend on the seed only, never on where the repetitions ran. Errors: an unknown strategy
/// name (Errc::invalid_argument), a repetition that threw. Empty on an MPI worker rank.
[[nodiscard]] aoe::Result<std::vector<ProblemResult>> run_experiment(
    const std::vector<Problem>& problems, const std::vector<std::string>& strategies,
    const Settings& settings);

/// The evaluations at which fractions of the optimum are reported: 25, 50, 100, 200, budget.
[[nodiscard]] std::vector<std::size_t> report_points(std::size_t budget);

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_EXPERIMENT_HPP
