// The GDAT job (gradient tuning, AOE_MODE 4 / aoe --job_type=4): a training model's gradient
// profile and a cluster -> AOE's default split (96.54% / 3.46%) as the baseline -> the exact
// optimum by dynamic programming -> gradient-fusion bank lookup -> search over splits on
// aoe::Tuner with the framework's policies (then cuts that do not shorten the step dropped) ->
// keep the best of the search and the default (or the bank's) -> bank accounting (hit / add /
// update / reserved / unsatisfied) -> result file (docs/gdat.md; AOE's side:
// docs/aoe-facts.md#gradient-tuning-and-hccls-split, docs/aoe-facts.md#gradient-fusion-bank).
#ifndef AOE_JOBS_GDAT_JOB_HPP
#define AOE_JOBS_GDAT_JOB_HPP

// What every job uses comes with the skeleton (job_skeleton.hpp), and the pieces of this
// job's folder bring what they use; GDAT adds:
#include "aoe/core/random.hpp"
#include "aoe/jobs/detail/transfer.hpp"
#include "aoe/jobs/gdat/cluster.hpp"
#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/gdat/gradient_fusion_bank.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/optimal_split.hpp"
#include "aoe/jobs/gdat/split_measure.hpp"
#include "aoe/jobs/gdat/split_space.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/jobs/job_driver.hpp"
#include "aoe/jobs/job_run.hpp"
#include "aoe/jobs/job_skeleton.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/tuner/stop_conditions.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <tuple>

namespace aoe {

/// Evaluations of the split search and the evaluations without improvement after which it
/// stops, by --tune_optimization_level (O2 normal, AOE's default; O1 high performance). An
/// evaluation is the cost model of one split (microseconds), so the budgets are large: at O2 the
/// default (evolutionary) search came within 0.54% of the optimum on ResNet-50 and BERT-base at
/// 8 and 64 devices over 20 seeds each, where 2000 evaluations (600 without improvement) left
/// 3 runs in 20 on BERT-base at 64 devices above 1% (docs/gdat.md).
inline constexpr JobBudgetPresets gdat_budget_preset{
    .o2 = {.evaluations = 10000, .patience = 3000},
    .o1 = {.evaluations = 40000, .patience = 12000}};

/// The search policy GDAT uses for `name`: `make_job_search(name, start)` ("evolutionary" on
/// `job_evolutionary_options()`); `start.initial` are measured first.
[[nodiscard]] inline Result<AnySearch> make_gdat_search(std::string_view name,
                                                        const SearchStart& start = {}) {
  return make_job_search(name, start);
}

/// What measuring GDAT's splits needs wherever it runs: the model on the cluster, at most
/// `max_segments` segments.
struct GdatContext {
  gdat::GradientProfile profile;
  gdat::Cluster cluster;
  std::uint64_t max_segments = gdat::max_split_segments;
};

/// A part of one of the search's batches, as any rank can measure it (`gdat_measure`).
/// Serialised between ranks by include/aoe/mpi/job_wire.hpp.
struct GdatMeasureRequest {
  std::shared_ptr<const GdatContext> context;
  std::vector<Configuration> batch;
};

/// The measurements of `batch` (configurations of SplitSpace(gradients, max_segments)) on the
/// context's model: what SplitMeasure gives in the job itself.
[[nodiscard]] inline std::vector<Measurement> gdat_measure(const GdatContext& context,
                                                           std::span<const Configuration> batch) {
  const gdat::IterationModel model(context.profile, context.cluster);
  const gdat::SplitSpace space(model.gradients(), context.max_segments);
  return gdat::SplitMeasure(model, space).measure(SpaceView(space.space()), batch);
}

/// What happened, for a progress display: a batch of the split search was measured,
/// `evaluations` of the `budget` so far.
struct GdatEvent {
  std::size_t evaluations = 0;
  std::size_t budget = 0;
};

/// Options of a GDAT job. Aggregate: `aoe::GdatOptions{.max_segments = 4}`.
struct GdatOptions {
  std::size_t max_segments = gdat::max_split_segments;  ///< --segments: 1 to 8
  std::string search = "evolutionary";                  ///< a name of aoe::make_search
  JobBudget budget = gdat_budget_preset.o2;
  std::uint64_t seed = 0;
  bool repeat_tune = false;  ///< REPEAT_TUNE: re-tune a model the bank holds
  /// --gdat_exact: also consider the dynamic programme's optimum and keep it when it beats the
  /// search's best. Off by default, so that the result is what the search earned and the report's
  /// gap measures the search.
  bool exact = false;
  std::size_t batch_size = 8;  ///< candidates proposed and measured together
  /// The work directory, whether the default split is recorded when nothing better is found,
  /// the stop flag, the progress callback (after each batch of the search) and where the
  /// search's batches are measured (spread over MPI ranks, each batch in one part per rank).
  JobRun<GdatEvent, GdatMeasureRequest, std::vector<Measurement>> run{};
};

/// What a job produced: the report and the result file.
using GdatJobResult = JobResult<GdatReport>;

namespace detail {

/// The job's measure policy: SplitMeasure, each batch spread over `executor`'s ranks (one
/// contiguous part per rank) when it has any; the measurements come back in batch order.
class GdatMeasure {
 public:
  GdatMeasure(gdat::SplitMeasure local, const GdatOptions& options,
              std::shared_ptr<const GdatContext> context)
      : local_(local), executor_(&options.run.executor), context_(std::move(context)) {}

  std::vector<Measurement> measure(SpaceView view, std::span<const Configuration> batch) {
    if (!executor_->run || executor_->ranks < 2) return local_.measure(view, batch);
    const std::size_t parts = std::min(executor_->ranks, batch.size());
    std::vector<GdatMeasureRequest> requests(parts);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      auto& q = requests[i * parts / batch.size()];
      q.context = context_;
      q.batch.push_back(batch[i]);
    }
    const StepFunction<GdatMeasureRequest, std::vector<Measurement>> local =
        [&](const GdatMeasureRequest& q) { return local_.measure(view, q.batch); };
    auto results = run_steps(*executor_, std::span<const GdatMeasureRequest>(requests),
                             std::span<const double>(), local);
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (std::size_t p = 0; p < parts; ++p) {
      for (std::size_t i = 0; i < requests[p].batch.size(); ++i) {
        if (results[p] && results[p]->size() == requests[p].batch.size()) {
          out.push_back((*results[p])[i]);
        } else {
          out.push_back(Measurement::failure(
              Status::runtime, results[p] ? "a rank returned another number of measurements"
                                          : "the rank failed: " + results[p].error().message));
        }
      }
    }
    return out;
  }

 private:
  gdat::SplitMeasure local_;
  const StepExecutor<GdatMeasureRequest, std::vector<Measurement>>* executor_;
  std::shared_ptr<const GdatContext> context_;
};

/// Drops the cuts of `split` that do not pay for themselves: while removing one leaves the
/// iteration time no longer, it is removed (fewer all-reduces for the same modelled time; each
/// has costs the model does not see). Returns the model evaluations it made.
inline std::size_t drop_idle_cuts(const gdat::IterationModel& model, GdatSplit& split,
                                  const gdat::GradientProfile& profile) {
  std::size_t evaluations = 0;
  bool dropped = true;
  while (dropped && split.split.segments() > 1) {
    dropped = false;
    for (std::size_t k = 0; k + 1 < split.split.ends.size(); ++k) {
      gdat::SplitStrategy fewer = split.split;
      fewer.ends.erase(fewer.ends.begin() + static_cast<std::ptrdiff_t>(k));
      const double t = model.seconds(fewer);
      ++evaluations;
      if (t <= split.seconds) {
        split = GdatSplit{fewer, fewer.size_percentages(profile), t};
        dropped = true;
        break;
      }
    }
  }
  return evaluations;
}

}  // namespace detail

/// The cluster part of a bank key: the cluster's signature and the segment limit.
[[nodiscard]] inline std::string gdat_cluster_key(const gdat::Cluster& cluster,
                                                  std::size_t max_segments) {
  return cluster.signature() + ";segments=" + std::to_string(max_segments);
}

namespace detail {

/// The options and inputs checked before a job: errors name the option or the field.
[[nodiscard]] inline Result<void> gdat_check(const gdat::GradientProfile& profile,
                                             const gdat::Cluster& cluster,
                                             const GdatOptions& options) {
  if (options.max_segments < 1 || options.max_segments > gdat::max_split_segments) {
    return make_error(Errc::invalid_argument,
                      "segments (--segments) = " + std::to_string(options.max_segments) +
                          ": expected 1 to 8 (HCCL splits the gradients into at most 8 "
                          "segments)");
  }
  if (auto ok = cluster.validate(); !ok) return ok.error();
  if (profile.gradients.empty()) {
    return make_error(Errc::invalid_argument,
                      profile.name + ": no gradients (expected at least one trainable parameter)");
  }
  for (std::size_t i = 0; i < profile.gradients.size(); ++i) {
    const auto& g = profile.gradients[i];
    if (!(g.backward_seconds >= 0) || !std::isfinite(g.backward_seconds) || g.bytes <= 0) {
      return make_error(Errc::invalid_argument,
                        profile.name + ": gradient " + std::to_string(i) + " ('" + g.name +
                            "'): expected a non-negative backward time and a positive size");
    }
  }
  if (!(profile.forward_seconds >= 0) || !(profile.backward_tail_seconds >= 0)) {
    return make_error(Errc::invalid_argument,
                      profile.name + ": expected non-negative forward and tail times");
  }
  return {};
}

/// The job's one task: the model on the cluster.
struct GdatTask {
  const gdat::GradientProfile& profile;
  const gdat::IterationModel& model;
  std::string cluster_key;
  std::shared_ptr<const GdatContext> context;  ///< for other ranks (options.run.executor)
  [[nodiscard]] GdatSplit summary(const gdat::SplitStrategy& s) const {
    return GdatSplit{s, s.size_percentages(profile), model.seconds(s)};
  }
};

/// The split search (the tuning step, then cuts that do not shorten the step dropped), or
/// the single split when only one exists. The search starts from what is known: the bank's
/// split (`stored`, on REPEAT_TUNE) and the default split are its first points, with the times
/// the job measured already (never measured again). Returns false when interrupted
/// (`rep.search_best` holds what was found).
[[nodiscard]] inline bool gdat_search(const GdatTask& task, const std::optional<GdatSplit>& stored,
                                      const GdatOptions& options, GdatReport& rep,
                                      std::optional<GdatSplit>& best) {
  const std::size_t n = task.model.gradients();
  const gdat::SplitSpace space(n, options.max_segments);
  if (space.space().dimensions() == 0) {
    // One segment at most, or one gradient: a single split exists.
    best = task.summary(gdat::SplitStrategy{{n - 1}});
    rep.evaluations = 1;
    return true;
  }
  SearchStart start;
  std::vector<std::pair<Configuration, Measurement>> known;
  const GdatSplit* const first[] = {stored ? &*stored : nullptr, &rep.baseline};
  for (const GdatSplit* s : first) {
    if (s == nullptr || !s->split.valid_for(n, options.max_segments)) continue;
    Configuration c = space.encode(s->split);
    if (std::find(start.initial.begin(), start.initial.end(), c) != start.initial.end()) continue;
    start.initial.push_back(c);
    known.emplace_back(std::move(c), Measurement::success(s->seconds));
  }
  auto search = make_gdat_search(options.search, start);
  if (!search) throw Error(Errc::invalid_argument, search.error().message);  // checked by run_gdat
  std::function<void(std::size_t, std::size_t)> progress;  // after each batch: a GdatEvent
  if (options.run.on_event) {
    progress = [&options](std::size_t evaluations, std::size_t budget) {
      options.run.on_event(GdatEvent{.evaluations = evaluations, .budget = budget});
    };
  }
  // The tuning step (job_skeleton.hpp): an executor may run it elsewhere.
  const TuningResult r =
      tune_step(space.space(), std::move(*search),
                KnownMeasure<GdatMeasure>(
                    GdatMeasure(gdat::SplitMeasure(task.model, space), options, task.context),
                    std::move(known)),
                derive_seed(options.seed, fnv1a(rep.model_hash + task.cluster_key)),
                StepLimits{options.budget, options.batch_size, options.run.stop, &progress});
  rep.evaluations = r.history.size();
  if (r.reason == StopReason::observer) {
    if (r.found()) rep.search_best = task.summary(space.decode(*r.best_configuration));
    return false;
  }
  if (r.found()) {
    best = task.summary(space.decode(*r.best_configuration));
    rep.evaluations += drop_idle_cuts(task.model, *best, task.profile);
  }
  return true;
}

/// The bank record of `s` for the task.
[[nodiscard]] inline gdat::GradientFusionRecord gdat_record(const GdatTask& task,
                                                            const GdatReport& rep,
                                                            const GdatSplit& s,
                                                            std::string policy) {
  gdat::GradientFusionRecord r;
  r.model_hash = rep.model_hash;
  r.cluster = task.cluster_key;
  r.model_name = task.profile.name;
  for (const auto& g : task.profile.gradients) {
    r.gradient_time_us.push_back(g.backward_seconds * 1e6);
    r.gradient_size.push_back(g.bytes);
  }
  r.split = s.split;
  r.by_size = s.by_size;
  r.iteration_seconds = s.seconds;
  r.default_seconds = rep.baseline.seconds;
  r.provenance = Provenance{std::move(policy), rep.evaluations, utc_timestamp(), gdat_timing()};
  return r;
}

/// The report's fixed part: the model, the cluster, the default split and the optimum.
inline void gdat_describe(const GdatTask& task, const gdat::Cluster& cluster,
                          const GdatOptions& options, GdatReport& rep) {
  rep.model_hash = task.profile.hash();
  rep.cluster = cluster;
  rep.max_segments = options.max_segments;
  rep.gradients = task.model.gradients();
  rep.gradient_bytes = task.profile.total_bytes();
  rep.forward_seconds = task.profile.forward_seconds;
  rep.backward_seconds = task.model.backward_seconds();
  rep.baseline = task.summary(gdat::default_split(task.profile));
  rep.optimum = task.summary(gdat::optimal_split(task.model, options.max_segments).split);
  rep.search_policy = options.search;
}

}  // namespace detail

namespace detail {

/// GDAT's schedule (job_driver.hpp): one task, the model's split: a bank hit, or one search
/// (whose batches `options.run.executor` spreads) and its accounting. The search looks at the
/// stop flag itself.
class GdatSchedule {
 public:
  using Output = GdatJobResult;
  static constexpr std::string_view job = "gdat";
  static constexpr bool late_stop_interrupts = false;

  GdatSchedule(const gdat::GradientProfile& profile, const gdat::Cluster& cluster,
               gdat::GradientFusionBank& bank, const GdatOptions& options)
      : profile_(profile), cluster_(cluster), bank_(bank), options_(options) {}

  [[nodiscard]] const std::string& name() const { return profile_.name; }

  [[nodiscard]] Result<void> check() { return bank_.check_writable(); }

  [[nodiscard]] Result<std::size_t> prepare(Output& out) {
    model_.emplace(profile_, cluster_);
    task_.emplace(GdatTask{profile_, *model_, gdat_cluster_key(cluster_, options_.max_segments),
                           options_.run.executor.run
                               ? std::make_shared<const GdatContext>(
                                     GdatContext{profile_, cluster_, options_.max_segments})
                               : nullptr});
    gdat_describe(*task_, cluster_, options_, out.report);
    return 1;
  }

  [[nodiscard]] bool stop_point(std::size_t /*task*/) const { return false; }

  [[nodiscard]] Result<TaskDone> run_task(std::size_t /*task*/, Output& out) {
    GdatReport& rep = out.report;
    auto found = bank_.lookup(rep.model_hash, task_->cluster_key);
    if (!found) return found.error();
    std::optional<GdatSplit> stored;
    // A record written for another gradient list: tune as if new, then replace it.
    const bool stale = found->has_value() &&
                       !(*found)->split.valid_for(model_->gradients(), options_.max_segments);
    if (found->has_value() && !stale) stored = task_->summary((*found)->split);
    if (stored && !options_.repeat_tune) {
      std::tie(rep.result, rep.strategy_source, rep.outcome) =
          std::tuple{*stored, "bank", GdatOutcome::hit};
    } else {
      std::optional<GdatSplit> best;
      if (!gdat_search(*task_, stored, options_, rep, best)) return TaskDone{false, true};
      if (auto ok = account(rep, stored, stale, best); !ok) return ok.error();
    }
    rep.timeline = model_->timeline(rep.result->split);
    rep.baseline_timeline = model_->timeline(rep.baseline.split);
    return TaskDone{};
  }

  void finished(std::size_t /*task*/, const Output& /*out*/) const {}

  [[nodiscard]] Result<void> write_model(const Output& /*out*/) const { return {}; }

 private:
  /// After the search: the split the job uses (the search's best, the exact optimum with
  /// --gdat_exact when it is faster, else what the job started from) and the bank written.
  [[nodiscard]] Result<void> account(GdatReport& rep, const std::optional<GdatSplit>& stored,
                                     bool stale, std::optional<GdatSplit> best) {
    if (!best) best = task_->summary(gdat::SplitStrategy{{model_->gradients() - 1}});  // no budget
    rep.search_best = best;
    std::string source = "search";
    if (options_.exact && gdat::faster(rep.optimum.seconds, best->seconds)) {
      best = rep.optimum;
      source = "exact";
    }
    const bool baseline_fits = rep.baseline.split.segments() <= options_.max_segments;
    const std::optional<GdatSplit> reference =
        stored ? stored : (baseline_fits ? std::optional<GdatSplit>(rep.baseline) : std::nullopt);
    const auto record = [&](const GdatSplit& s, std::string policy) {
      return bank_.store(gdat_record(*task_, rep, s, std::move(policy)), stale);
    };
    auto acc = aoe::account(
        stored.has_value(), false, !reference || gdat::faster(best->seconds, reference->seconds),
        options_.run.record_unsatisfied,
        [&] { return record(*best, source == "exact" ? "exact" : options_.search); },
        [&] { return record(*reference, "default"); });
    if (!acc) return acc.error();
    rep.outcome = acc->outcome;
    rep.result = acc->use_found ? *best : *reference;
    rep.strategy_source = acc->use_found ? source : (stored ? "bank" : "default");
    return {};
  }

  const gdat::GradientProfile& profile_;
  const gdat::Cluster& cluster_;
  gdat::GradientFusionBank& bank_;
  const GdatOptions& options_;
  std::optional<gdat::IterationModel> model_;
  std::optional<GdatTask> task_;
};

}  // namespace detail

/// Runs GDAT, by the job driver (job_driver.hpp). Errors: invalid options or inputs
/// (Errc::invalid_argument, naming the option or the field), the bank and the result file (the
/// environment). When `options.run.stop` is set during the search, the job ends after the
/// current batch with the report marked "tune tuning incomplete" and returns Errc::interrupted,
/// with the job so far in `partial`.
[[nodiscard]] inline Result<GdatJobResult> run_gdat(const gdat::GradientProfile& profile,
                                                    const gdat::Cluster& cluster,
                                                    gdat::GradientFusionBank& bank,
                                                    const GdatOptions& options,
                                                    GdatJobResult* partial = nullptr) {
  if (auto ok = detail::gdat_check(profile, cluster, options); !ok) return ok.error();
  if (auto search = make_gdat_search(options.search); !search) return search.error();
  detail::GdatSchedule schedule(profile, cluster, bank, options);
  return run_job(schedule, options.run.result_dir, options.run.stop, partial);
}

}  // namespace aoe

#endif  // AOE_JOBS_GDAT_JOB_HPP
