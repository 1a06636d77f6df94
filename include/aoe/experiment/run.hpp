// The experiment that makes search policies comparable (docs/research.md): every strategy on
// every input, `repeats` seeded repetitions each, summarised as fractions of the optimum per
// budget with bootstrap intervals and the methodology score. What `aoe-bench` runs; a user's
// own policy runs beside ours (strategy.hpp).
#ifndef AOE_EXPERIMENT_RUN_HPP
#define AOE_EXPERIMENT_RUN_HPP

#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/experiment/detail/summarise.hpp"
#include "aoe/experiment/problem.hpp"
#include "aoe/experiment/results.hpp"
#include "aoe/experiment/settings.hpp"
#include "aoe/experiment/strategy.hpp"
#include "aoe/measure/replay/methodology.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/stop_conditions.hpp"
#include "aoe/tuner/tuner.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace aoe::experiment {

namespace detail {

// Measure policy over a Problem: the problem's device time is what is charged.
struct ProblemRunner {
  static constexpr bool reports_device_time = true;
  const Problem* problem;
  [[nodiscard]] std::vector<Measurement> measure(SpaceView view,
                                                 std::span<const Configuration> batch) const {
    return problem->measure(view, batch);
  }
};

// Stops a run once the charged device time reaches the limit (the evaluation that crosses
// it counts, as Kernel Tuner checks its time limit before each evaluation). Only device time
// is counted, never wall time, so that runs are reproducible.
struct DeviceTimeLimit {
  double limit = inf;
  double spent = 0;
  bool on_measurement(const Trial& t, const TuningState& /*state*/) {
    spent += t.measurement.cost;
    return spent >= limit;
  }
};

// At each report point up to the budget, the hypervolume of the front of the run's first k
// trials (all of them, for a run that ended sooner) over the recorded front's, both against
// the recorded front's reference point.
inline std::vector<double> front_hypervolumes(const Problem& problem, const TuningResult& result,
                                              const Settings& settings) {
  const FrontPoint reference = problem.front_reference();
  const double recorded = front_hypervolume(problem.front, reference);
  std::vector<double> out;
  std::vector<FrontPoint> front;
  std::size_t k = 0;
  for (const std::size_t point : report_points(settings.budget)) {
    if (point > settings.budget) continue;  // the budget, appended last, is the largest kept
    for (; k < std::min(point, result.history.size()); ++k) {
      const auto& m = result.history[k].measurement;
      if (m.ok() && m.energy && under_cap(m, settings.objective)) {
        (void)add_to_front(front, {m.value, m.energy->joules, k});
      }
    }
    out.push_back(recorded > 0 ? front_hypervolume(front, reference) / recorded : 0.0);
  }
  return out;
}

// Best value after each evaluation (infinity before the first valid one), `length` long: a
// run that ended early keeps its last value. With settings.traces, `trace` gets what each
// evaluation gave and the run's wall seconds.
inline std::vector<double> run_once(const Problem& problem, const Strategy& strategy,
                                    std::uint64_t seed, std::size_t length,
                                    const Settings& settings, std::size_t& evaluations,
                                    Trace& trace, std::vector<double>& hypervolume) {
  const auto started = std::chrono::steady_clock::now();
  const std::optional<double> seconds = settings.budget_seconds;
  SearchStart start;
  if (settings.start_from_default) start.initial = problem.defaults;
  AnySearch policy = strategy.make(start);
  if (!policy) throw std::invalid_argument("the strategy's make returned no policy");
  // Transfer's seeds go through the tuner, as for any aoe::Tuner user (docs/transfer.md): the
  // policy's warm start, or the tuner's own proposals for a policy without one.
  TunerOptions options{.seed = seed, .objective = settings.objective};
  if (settings.transfer) options.transfer.seeds = problem.transfer;
  Tuner<AnySearch, ProblemRunner> tuner(std::move(policy), ProblemRunner{&problem}, options);
  DeviceTimeLimit limit{.limit = seconds.value_or(inf)};
  const auto result = tuner.tune(*problem.space, MaxEvaluations{length}, limit);
  if (settings.traces) {
    trace.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (std::size_t k = 0; k < std::min(result.history.size(), length); ++k) {
      const auto& m = result.history[k].measurement;
      trace.values.push_back(m.ok() ? m.value : std::numeric_limits<double>::quiet_NaN());
      trace.costs.push_back(m.cost);
      trace.configurations.push_back(result.history[k].configuration);
      if (settings.objective.kind == ObjectiveKind::pareto) {
        trace.energies.push_back(m.ok() && m.energy ? m.energy->joules
                                                    : std::numeric_limits<double>::quiet_NaN());
      }
    }
  }
  if (settings.objective.kind == ObjectiveKind::pareto) {
    hypervolume = front_hypervolumes(problem, result, settings);
  }
  std::vector<double> best(length, inf);
  double b = inf;
  evaluations = std::min(result.history.size(), length);
  for (std::size_t k = 0; k < length; ++k) {
    if (k < result.history.size()) {
      const auto& m = result.history[k].measurement;
      if (m.ok() && m.value < b) b = m.value;
    }
    best[k] = b;
  }
  return best;
}

// Runs repetitions 0..count-1 on `settings.threads` threads (0: every core), one slot per
// repetition; the first repetition (by index) that threw is the error.
inline Result<std::vector<Repetition>> run_threads(
    std::size_t count, const std::function<Repetition(std::size_t)>& one,
    const Settings& settings) {
  std::vector<Repetition> reps(count);
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;  // guarded by progress_mutex
  std::mutex progress_mutex;
  std::mutex failure_mutex;
  std::optional<std::pair<std::size_t, std::string>> failure;  // the first job that threw
  const auto work = [&] {
    for (std::size_t j = next++; j < count; j = next++) {
      try {
        reps[j] = one(j);
      } catch (const std::exception& e) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure || failure->first > j) failure.emplace(j, e.what());
      }
      if (settings.on_progress) {
        const std::lock_guard<std::mutex> lock(progress_mutex);
        settings.on_progress(++done, count);
      }
    }
  };
  std::size_t threads =
      settings.threads != 0 ? settings.threads : std::max(1U, std::thread::hardware_concurrency());
  threads = std::min(threads, std::max<std::size_t>(1, count));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) return make_error(Errc::invalid_argument, failure->second);
  return reps;
}

// One repetition of the experiment: a strategy on a problem with one seed.
struct Job {
  std::size_t problem, strategy, repeat;
};

// Every repetition of the experiment, problem by problem, then strategy by strategy.
inline std::vector<Job> job_list(std::size_t problems, std::size_t strategies,
                                 std::size_t repeats) {
  std::vector<Job> jobs;
  for (std::size_t p = 0; p < problems; ++p) {
    for (std::size_t s = 0; s < strategies; ++s) {
      for (std::size_t r = 0; r < repeats; ++r) jobs.push_back({p, s, r});
    }
  }
  return jobs;
}

// Per problem, the evaluations the methodology score averages over (at most
// max_score_evaluations when that is set).
inline std::vector<replay::ScoreRange> score_ranges(const std::vector<Problem>& problems,
                                                    const Settings& settings) {
  std::vector<replay::ScoreRange> ranges(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    ranges[p] = replay::score_range(problems[p].baseline, settings.methodology);
    if (settings.max_score_evaluations != 0) {
      ranges[p].last = std::min(ranges[p].last, settings.max_score_evaluations);
      ranges[p].first = std::min(ranges[p].first, ranges[p].last);
    }
  }
  return ranges;
}

// Runs `job` for `length` evaluations; what it threw is rethrown naming the repetition.
inline Repetition run_job(const Job& job, const std::vector<Problem>& problems,
                          const std::vector<Strategy>& strategies, std::size_t length,
                          const Settings& settings) {
  Repetition rep;
  std::size_t evaluations = 0;
  try {
    rep.curve = run_once(problems[job.problem], strategies[job.strategy],
                         derive_seed(settings.seed, job.repeat), length, settings, evaluations,
                         rep.trace, rep.hypervolume);
  } catch (const std::exception& e) {
    throw std::runtime_error("strategy '" + strategies[job.strategy].name + "' on " +
                             problems[job.problem].name + " (repetition " +
                             std::to_string(job.repeat) + ") threw: " + e.what());
  }
  rep.evaluations = evaluations;
  return rep;
}

// Runs repetitions 0..count-1 with settings.run_repetitions, else on threads; nullopt on an MPI
// worker rank.
inline Result<std::optional<std::vector<Repetition>>> run_jobs(
    std::size_t count, const std::function<Repetition(std::size_t)>& one,
    const Settings& settings) {
  if (!settings.run_repetitions) {
    auto ran = run_threads(count, one, settings);
    if (!ran) return ran.error();
    return std::optional<std::vector<Repetition>>(std::move(*ran));
  }
  auto ran = settings.run_repetitions(count, one);
  if (!ran) return ran.error();
  if (*ran && (*ran)->size() != count) {
    return make_error(Errc::invalid_argument, "run_repetitions returned " +
                                                  std::to_string((*ran)->size()) +
                                                  " repetitions for " + std::to_string(count));
  }
  return ran;
}

// Per problem, each strategy's summary of its repetitions (`reps`, in job_list order).
inline std::vector<ProblemResult> summarise_all(const std::vector<Problem>& problems,
                                                const std::vector<Strategy>& strategies,
                                                const Settings& settings,
                                                const std::vector<replay::ScoreRange>& ranges,
                                                const std::vector<std::size_t>& lengths,
                                                std::vector<Repetition> reps) {
  std::vector<ProblemResult> out(problems.size());
  std::size_t j = 0;
  for (std::size_t p = 0; p < problems.size(); ++p) {
    out[p].problem = &problems[p];
    const auto random = replay::random_curve(problems[p].baseline, ranges[p]);
    for (std::size_t s = 0; s < strategies.size(); ++s) {
      std::vector<std::vector<double>> runs;
      std::vector<std::size_t> evals;
      std::vector<Trace> traces;
      std::vector<std::vector<double>> hypervolumes;
      for (std::size_t r = 0; r < settings.repeats; ++r, ++j) {
        runs.push_back(std::move(reps[j].curve));
        hypervolumes.push_back(std::move(reps[j].hypervolume));
        evals.push_back(static_cast<std::size_t>(reps[j].evaluations));
        if (settings.traces) traces.push_back(std::move(reps[j].trace));
      }
      out[p].strategies.push_back(summarise(problems[p], strategies[s].name, runs, std::move(evals),
                                            settings, ranges[p], random, lengths[p]));
      out[p].strategies.back().traces = std::move(traces);
      add_hypervolumes(out[p].strategies.back(), problems[p], hypervolumes, settings);
    }
  }
  return out;
}

}  // namespace detail

/// Runs every strategy on every problem, `repeats` times each (repetition r seeded with
/// derive_seed(seed, r)), on `threads` threads or with `settings.run_repetitions`. The numbers
/// depend on the seed only, never on where the repetitions ran. Errors: a repetition that
/// threw (Errc::invalid_argument, naming the strategy, the input and the repetition).
/// Empty on an MPI worker rank. `problems` must outlive the results (they point to them). Our
/// policies by name: `named({"random", "bayesian"})`; a user's: `policy<MyPolicy>("mine")`.
[[nodiscard]] inline Result<std::vector<ProblemResult>> run(const std::vector<Problem>& problems,
                                                            const std::vector<Strategy>& strategies,
                                                            const Settings& settings) {
  using namespace detail;
  if (settings.objective.kind == ObjectiveKind::pareto) {
    for (const auto& p : problems) {
      if (p.front.empty()) {
        return make_error(Errc::invalid_argument,
                          "objective pareto: input " + p.name + " (" + p.source +
                              ") has no recorded energy to score a front against");
      }
    }
  }
  const std::vector<Job> jobs = job_list(problems.size(), strategies.size(), settings.repeats);
  const std::vector<replay::ScoreRange> ranges = score_ranges(problems, settings);
  std::vector<std::size_t> lengths(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    lengths[p] = std::max(settings.budget, ranges[p].last);
  }
  // Repetition j of the job list: a function of j alone, so results never depend on which
  // thread or rank ran what.
  const auto one = [&](std::size_t j) {
    const Job& job = jobs.at(j);
    return run_job(job, problems, strategies, lengths[job.problem], settings);
  };
  auto reps = run_jobs(jobs.size(), one, settings);
  if (!reps) return reps.error();
  if (!*reps) return std::vector<ProblemResult>{};  // an MPI worker: rank 0 summarises
  return summarise_all(problems, strategies, settings, ranges, lengths, std::move(**reps));
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_RUN_HPP
