#include "experiment.hpp"

#include <aoe/core/random.hpp>
#include <aoe/measure/replay/load.hpp>
#include <aoe/measure/replay/replay_runner.hpp>
#include <aoe/search/any_search.hpp>
#include <aoe/search/by_name.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>
#include <aoe/vocab/trial.hpp>

#include <zlib.h>  // the replay loader reads gzip: this tool links zlib (tools/CMakeLists.txt)

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace aoe_bench {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Measure policy over a Problem: the problem's device time is what is charged.
struct ProblemRunner {
  static constexpr bool reports_device_time = true;
  const Problem* problem;
  [[nodiscard]] std::vector<aoe::Measurement> measure(
      aoe::SpaceView view, std::span<const aoe::Configuration> batch) const {
    return problem->measure(view, batch);
  }
};

// Stops a run once the charged device time reaches the limit (the evaluation that crosses
// it counts, as Kernel Tuner checks its time limit before each evaluation). Only device time
// is counted, never wall time, so that runs are reproducible.
struct DeviceTimeLimit {
  double limit = inf;
  double spent = 0;
  bool on_measurement(const aoe::Trial& t, const aoe::TuningState& /*state*/) {
    spent += t.measurement.cost;
    return spent >= limit;
  }
};

// Best value after each evaluation (infinity before the first valid one), `length` long: a
// run that ended early keeps its last value. With settings.traces, `trace` gets what each
// evaluation gave and the run's wall seconds.
std::vector<double> run_once(const Problem& problem, const std::string& strategy,
                             std::uint64_t seed, std::size_t length, const Settings& settings,
                             std::size_t& evaluations, Trace& trace) {
  const auto started = std::chrono::steady_clock::now();
  const std::optional<double> seconds = settings.budget_seconds;
  aoe::SearchStart start;
  if (settings.start_from_default) start.initial = problem.defaults;
  if (settings.transfer) {
    start.initial.insert(start.initial.end(), problem.transfer.begin(), problem.transfer.end());
  }
  auto policy = aoe::make_search(strategy, start);
  if (!policy) throw std::invalid_argument("--strategy: " + policy.error().message);
  aoe::Tuner<aoe::AnySearch, ProblemRunner> tuner(std::move(*policy), ProblemRunner{&problem},
                                                  aoe::TunerOptions{.seed = seed});
  DeviceTimeLimit limit{.limit = seconds.value_or(inf)};
  const auto result = tuner.tune(*problem.space, aoe::MaxEvaluations{length}, limit);
  if (settings.traces) {
    trace.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    for (std::size_t k = 0; k < std::min(result.history.size(), length); ++k) {
      const auto& m = result.history[k].measurement;
      trace.values.push_back(m.ok() ? m.value : std::numeric_limits<double>::quiet_NaN());
      trace.costs.push_back(m.cost);
    }
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

// Linear-interpolation quantile (numpy's default) of sorted values; infinities sort last.
double quantile(const std::vector<double>& sorted, double q) {
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
double fraction_of(double opt, double v) { return std::isinf(v) ? 0.0 : opt / v; }

// The curves over k = 1..min(length, budget): the best value's mean (nothing found yet counted
// as `worst`), median and quartiles, and the same of the fraction of the optimum.
void add_curves(StrategyResult& s, const std::vector<std::vector<double>>& runs, std::size_t length,
                std::size_t budget, double opt, double worst) {
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
constexpr double milestones[] = {0.95, 0.98, 0.99};

// Per run, the evaluations after which its best reaches `p` of the optimum `opt` (infinity
// when it does not within `length`).
std::vector<double> evaluations_to_reach(const std::vector<std::vector<double>>& runs,
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
void add_milestones(StrategyResult& s, const std::vector<std::vector<double>>& runs,
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
void add_bootstrap(StrategyResult& s, const Problem& problem,
                   const std::vector<std::vector<double>>& runs, const Settings& settings,
                   aoe::replay::ScoreRange range, std::span<const double> random_curve,
                   std::size_t length) {
  const std::size_t n = runs.size();
  const double opt = problem.optimum();
  std::uint64_t stream = 0xcbf29ce484222325ULL;  // FNV-1a of "input/strategy"
  for (const char ch : problem.name + "/" + s.name) {
    stream = (stream ^ static_cast<unsigned char>(ch)) * 0x100000001b3ULL;
  }
  aoe::replay::BootstrapOptions boot = settings.bootstrap;
  boot.seed = aoe::derive_seed(settings.bootstrap.seed, stream);
  for (const auto& [k, f] : s.fraction_of_optimum) {
    if (std::isnan(f)) continue;
    std::vector<double> per_run(n);
    for (std::size_t r = 0; r < n; ++r) per_run[r] = fraction_of(opt, runs[r][k - 1]);
    s.fraction_replicates[k] =
        aoe::replay::bootstrap_replicates(n, boot, [&](std::span<const std::size_t> idx) {
          double sum = 0;
          for (const std::size_t i : idx) sum += per_run[i];
          return sum / static_cast<double>(idx.size());
        });
  }
  std::vector<double> resampled(n);
  for (const double p : milestones) {
    const std::vector<double> reached = evaluations_to_reach(runs, length, opt, p);
    s.evaluations_to_replicates[p] =
        aoe::replay::bootstrap_replicates(n, boot, [&](std::span<const std::size_t> idx) {
          for (std::size_t i = 0; i < n; ++i) resampled[i] = reached[idx[i]];
          std::sort(resampled.begin(), resampled.end());
          return quantile(resampled, 0.5);
        });
  }
  std::vector<std::vector<double>> ranks;
  ranks.reserve(n);
  for (const auto& run : runs)
    ranks.push_back(aoe::replay::rank_curve(run, problem.baseline, range));
  std::vector<double> mean_ranks(random_curve.size());
  s.score_replicates =
      aoe::replay::bootstrap_replicates(n, boot, [&](std::span<const std::size_t> idx) {
        std::fill(mean_ranks.begin(), mean_ranks.end(), 0.0);
        for (const std::size_t i : idx) {
          for (std::size_t j = 0; j < mean_ranks.size(); ++j) mean_ranks[j] += ranks[i][j];
        }
        for (double& m : mean_ranks) m /= static_cast<double>(idx.size());
        return aoe::replay::methodology_score_from_ranks(mean_ranks, problem.baseline, range,
                                                         random_curve);
      });
}

StrategyResult summarise(const Problem& problem, const std::string& name,
                         const std::vector<std::vector<double>>& runs,
                         std::vector<std::size_t> evaluations, const Settings& settings,
                         aoe::replay::ScoreRange range, std::span<const double> random_curve,
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
  s.score = aoe::replay::methodology_score(runs, problem.baseline, range, random_curve);
  add_bootstrap(s, problem, runs, settings, range, random_curve, length);
  return s;
}

}  // namespace

namespace {

// The Cartesian product of a recording's parameters; absent configurations fail.
aoe::replay::Recording cartesian_of(const aoe::replay::Recording& r) {
  const auto& parameters = r.space().parameters();
  aoe::replay::Recording out(r.name() + "@cartesian", r.path(), parameters);
  out.device = r.device;
  out.kernel = r.kernel;
  out.objective = r.objective;
  aoe::Configuration c(parameters.size(), 0);
  const std::size_t dims = parameters.size();
  while (true) {
    if (const auto* e = r.find(c)) {
      out.add(c, *e);
    } else {
      aoe::replay::RecordedEntry failed;
      failed.status = aoe::Status::constraints;
      failed.marker = "absent from the recording (Cartesian product)";
      out.add(c, std::move(failed));
    }
    std::size_t d = dims;
    while (d > 0) {
      --d;
      if (++c[d] < parameters[d].size()) break;
      c[d] = 0;
      if (d == 0) return out;
    }
    if (dims == 0) return out;
  }
}

// Runs repetitions 0..count-1 on `settings.threads` threads (0: every core), one slot per
// repetition; the first repetition (by index) that threw is the error.
aoe::Result<std::vector<Repetition>> run_threads(std::size_t count,
                                                 const std::function<Repetition(std::size_t)>& one,
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
  if (failure) return aoe::make_error(aoe::Errc::invalid_argument, failure->second);
  return reps;
}

}  // namespace

aoe::Result<Problem> load_problem(const std::string& input, bool cartesian) {
  auto recording = aoe::replay::load(input);
  if (!recording) return recording.error();
  if (cartesian) recording = cartesian_of(*recording);
  Problem p;
  p.source = input;
  p.name = recording->name();
  auto shared = std::make_shared<const aoe::replay::Recording>(std::move(*recording));
  p.recording = shared;
  p.space = &shared->space();
  p.baseline = shared->baseline();
  p.configurations = shared->configurations();
  p.valid_configurations = shared->valid_configurations();
  if (p.valid_configurations == 0) {
    return aoe::make_error(aoe::Errc::schema_error,
                           input + ": /cache: no configuration was measured successfully");
  }
  auto runner = std::make_shared<const aoe::ReplayRunner>(shared);
  p.measure = [runner](aoe::SpaceView view, std::span<const aoe::Configuration> batch) {
    return runner->measure(view, batch);
  };
  return p;
}

void add_transfer(std::vector<Problem>& problems, std::size_t top) {
  const auto same_parameters = [](const aoe::Space& a, const aoe::Space& b) {
    if (a.dimensions() != b.dimensions()) return false;
    for (std::size_t d = 0; d < a.dimensions(); ++d) {
      const auto& pa = a.parameter(d);
      const auto& pb = b.parameter(d);
      if (pa.name() != pb.name() || pa.size() != pb.size()) return false;
      for (std::uint32_t i = 0; i < pa.size(); ++i) {
        if (pa.numeric(i) != pb.numeric(i)) return false;
      }
    }
    return true;
  };
  // Each recording's valid configurations, best first (ties: recording order).
  std::vector<std::vector<aoe::Configuration>> ranked(problems.size());
  for (std::size_t q = 0; q < problems.size(); ++q) {
    if (!problems[q].recording) continue;
    const auto& r = *problems[q].recording;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < r.entries().size(); ++i) {
      if (r.entries()[i].status == aoe::Status::correct) order.push_back(i);
    }
    const std::size_t k = std::min(top, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        return r.entries()[a].value < r.entries()[b].value ||
                               (r.entries()[a].value == r.entries()[b].value && a < b);
                      });
    for (std::size_t i = 0; i < k; ++i) ranked[q].push_back(r.recorded()[order[i]]);
  }
  for (std::size_t p = 0; p < problems.size(); ++p) {
    auto& target = problems[p];
    target.transfer.clear();
    target.transfer_sources.clear();
    if (!target.recording) continue;
    std::vector<std::size_t> sources;
    for (std::size_t q = 0; q < problems.size(); ++q) {
      if (q != p && problems[q].recording && problems[q].source != target.source &&
          same_parameters(*problems[q].space, *target.space)) {
        sources.push_back(q);
        target.transfer_sources.push_back(problems[q].name);
      }
    }
    for (std::size_t rank = 0; rank < top; ++rank) {
      for (const std::size_t q : sources) {
        if (rank >= ranked[q].size()) continue;
        const auto& c = ranked[q][rank];
        if (std::find(target.transfer.begin(), target.transfer.end(), c) == target.transfer.end() &&
            target.space->is_valid(c)) {
          target.transfer.push_back(c);
        }
      }
    }
  }
}

std::vector<std::size_t> report_points(std::size_t budget) {
  std::vector<std::size_t> points{25, 50, 100, 200};
  if (std::find(points.begin(), points.end(), budget) == points.end()) points.push_back(budget);
  return points;
}

namespace {

// One repetition of the experiment: a strategy on a problem with one seed.
struct Job {
  std::size_t problem, strategy, repeat;
};

// Every repetition of the experiment, problem by problem, then strategy by strategy.
std::vector<Job> job_list(std::size_t problems, std::size_t strategies, std::size_t repeats) {
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
std::vector<aoe::replay::ScoreRange> score_ranges(const std::vector<Problem>& problems,
                                                  const Settings& settings) {
  std::vector<aoe::replay::ScoreRange> ranges(problems.size());
  for (std::size_t p = 0; p < problems.size(); ++p) {
    ranges[p] = aoe::replay::score_range(problems[p].baseline, settings.methodology);
    if (settings.max_score_evaluations != 0) {
      ranges[p].last = std::min(ranges[p].last, settings.max_score_evaluations);
      ranges[p].first = std::min(ranges[p].first, ranges[p].last);
    }
  }
  return ranges;
}

// Runs `job` for `length` evaluations; what it threw is rethrown naming the repetition.
Repetition run_job(const Job& job, const std::vector<Problem>& problems,
                   const std::vector<std::string>& strategies, std::size_t length,
                   const Settings& settings) {
  Repetition rep;
  std::size_t evaluations = 0;
  try {
    rep.curve = run_once(problems[job.problem], strategies[job.strategy],
                         aoe::derive_seed(settings.seed, job.repeat), length, settings, evaluations,
                         rep.trace);
  } catch (const std::exception& e) {
    throw std::runtime_error("strategy '" + strategies[job.strategy] + "' on " +
                             problems[job.problem].name + " (repetition " +
                             std::to_string(job.repeat) + ") threw: " + e.what());
  }
  rep.evaluations = evaluations;
  return rep;
}

// Runs repetitions 0..count-1 with settings.run_repetitions, else on threads; nullopt on an MPI
// worker rank.
aoe::Result<std::optional<std::vector<Repetition>>> run_jobs(
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
    return aoe::make_error(aoe::Errc::invalid_argument,
                           "run_repetitions returned " + std::to_string((*ran)->size()) +
                               " repetitions for " + std::to_string(count));
  }
  return ran;
}

// Per problem, each strategy's summary of its repetitions (`reps`, in job_list order).
std::vector<ProblemResult> summarise_all(const std::vector<Problem>& problems,
                                         const std::vector<std::string>& strategies,
                                         const Settings& settings,
                                         const std::vector<aoe::replay::ScoreRange>& ranges,
                                         const std::vector<std::size_t>& lengths,
                                         std::vector<Repetition> reps) {
  std::vector<ProblemResult> out(problems.size());
  std::size_t j = 0;
  for (std::size_t p = 0; p < problems.size(); ++p) {
    out[p].problem = &problems[p];
    const auto random = aoe::replay::random_curve(problems[p].baseline, ranges[p]);
    for (std::size_t s = 0; s < strategies.size(); ++s) {
      std::vector<std::vector<double>> runs;
      std::vector<std::size_t> evals;
      std::vector<Trace> traces;
      for (std::size_t r = 0; r < settings.repeats; ++r, ++j) {
        runs.push_back(std::move(reps[j].curve));
        evals.push_back(static_cast<std::size_t>(reps[j].evaluations));
        if (settings.traces) traces.push_back(std::move(reps[j].trace));
      }
      out[p].strategies.push_back(summarise(problems[p], strategies[s], runs, std::move(evals),
                                            settings, ranges[p], random, lengths[p]));
      out[p].strategies.back().traces = std::move(traces);
    }
  }
  return out;
}

}  // namespace

aoe::Result<std::vector<ProblemResult>> run_experiment(const std::vector<Problem>& problems,
                                                       const std::vector<std::string>& strategies,
                                                       const Settings& settings) {
  for (const auto& s : strategies) {
    if (auto made = aoe::make_search(s); !made) return made.error();
  }
  const std::vector<Job> jobs = job_list(problems.size(), strategies.size(), settings.repeats);
  const std::vector<aoe::replay::ScoreRange> ranges = score_ranges(problems, settings);
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

}  // namespace aoe_bench
