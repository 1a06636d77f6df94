// The GDAT job (gradient tuning, AOE_MODE 4 / aoe --job_type=4): a training model's gradient
// profile and a cluster -> AOE's default split (96.54% / 3.46%) as the baseline -> the exact
// optimum by dynamic programming -> gradient-fusion bank lookup -> search over splits on
// aoe::Tuner with the framework's policies (then cuts that do not shorten the step dropped) ->
// keep the best of the search and the default (or the bank's) -> bank accounting (hit / add /
// update / reserved / unsatisfied) -> result file (ascend-aoe-facts.md §2.5(d), §4.3;
// docs/gdat.md).
#ifndef AOE_JOBS_GDAT_JOB_HPP
#define AOE_JOBS_GDAT_JOB_HPP

#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/core/stop_conditions.hpp"
#include "aoe/core/tuner.hpp"
#include "aoe/jobs/gdat/cluster.hpp"
#include "aoe/jobs/gdat/gradient_fusion_bank.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/optimal_split.hpp"
#include "aoe/jobs/gdat/split_measure.hpp"
#include "aoe/jobs/gdat/split_space.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"
#include "aoe/jobs/gdat_report.hpp"
#include "aoe/repo/memory_repository.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/search/evolutionary.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace aoe {

/// Evaluations of the split search and the evaluations without improvement after which it
/// stops, by --tune_optimization_level (O2 normal, AOE's default; O1 high performance). An
/// evaluation is the cost model of one split (microseconds), so the budgets are large: at O2 the
/// default (evolutionary) search came within 0.54% of the optimum on ResNet-50 and BERT-base at
/// 8 and 64 devices over 20 seeds each, where 2000 evaluations (600 without improvement) left
/// 3 runs in 20 on BERT-base at 64 devices above 1% (docs/gdat.md).
struct GdatBudget {
  std::size_t evaluations = 0;
  std::size_t patience = 0;
};

[[nodiscard]] inline Result<GdatBudget> gdat_budget_preset(std::string_view level) {
  if (level == "O2") return GdatBudget{.evaluations = 10000, .patience = 3000};
  if (level == "O1") return GdatBudget{.evaluations = 40000, .patience = 12000};
  return make_error(Errc::invalid_argument, "--tune_optimization_level='" + std::string(level) +
                                                "': expected O1 (high performance) or O2 "
                                                "(normal, the default)");
}

/// The search policy GDAT uses for `name`: `make_search(name)`.
[[nodiscard]] inline Result<AnySearch> make_gdat_search(std::string_view name) {
  return make_search(name);
}

/// Options of a GDAT job. Aggregate: `aoe::GdatOptions{.max_segments = 4}`.
struct GdatOptions {
  std::size_t max_segments = gdat::max_split_segments;  ///< --segments: 1 to 8
  std::string search = "evolutionary";                  ///< a name of aoe::make_search
  GdatBudget budget{.evaluations = 10000, .patience = 3000};
  std::uint64_t seed = 0;
  bool repeat_tune = false;  ///< REPEAT_TUNE: re-tune a model the bank holds
  /// --gdat_exact: also consider the dynamic programme's optimum and keep it when it beats the
  /// search's best. Off by default, so that the result is what the search earned and the report's
  /// gap measures the search.
  bool exact = false;
  /// Record the default split in the bank when nothing better is found (provenance policy
  /// "default"), so that the next job is a hit instead of a new search. AOE writes nothing.
  bool record_unsatisfied = true;
  std::size_t batch_size = 8;               ///< candidates proposed and measured together
  std::filesystem::path result_dir = ".";   ///< ASCEND_WORK_PATH or the working directory
  const std::atomic<bool>* stop = nullptr;  ///< set by SIGINT/SIGTERM: end cleanly
  /// Called after each batch of the search with the evaluations so far and the budget.
  std::function<void(std::size_t evaluations, std::size_t budget)> on_progress{};
};

/// What a job produced.
struct GdatJobResult {
  GdatReport report;
  std::filesystem::path result_file;
};

namespace detail {

/// Stops the search when the job is asked to stop, and reports progress.
struct GdatObserver {
  const std::atomic<bool>* stop;
  const std::function<void(std::size_t, std::size_t)>* progress;
  std::size_t budget;
  [[nodiscard]] bool on_batch(std::span<const Trial> /*trials*/, const TuningState& state) const {
    if (progress != nullptr && *progress) (*progress)(state.evaluations, budget);
    return stop != nullptr && stop->load();
  }
};

inline std::uint64_t gdat_fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

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

/// Runs GDAT. Errors: invalid options or inputs (Errc::invalid_argument, naming the option or
/// the field), the bank and the result file (the environment). When `options.stop` is set
/// during the search, the job ends after the current batch with the report marked "tune tuning
/// incomplete" and returns Errc::interrupted, with the job so far in `partial`.
[[nodiscard]] inline Result<GdatJobResult> run_gdat(const gdat::GradientProfile& profile,
                                                    const gdat::Cluster& cluster,
                                                    gdat::GradientFusionBank& bank,
                                                    const GdatOptions& options,
                                                    GdatJobResult* partial = nullptr) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
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
  auto search = make_gdat_search(options.search);
  if (!search) return search.error();

  GdatJobResult job;
  GdatReport& rep = job.report;
  rep.tuning_name = profile.name;
  rep.timestamp = aoe_timestamp();
  rep.tid = static_cast<long>(::gettid());
  job.result_file = options.result_dir / gdat_result_file_name(rep.timestamp);
  {
    std::error_code ec;
    std::filesystem::create_directories(options.result_dir, ec);
    if (ec) {
      return make_error(Errc::io_error, "cannot create the work directory " +
                                            options.result_dir.string() + ": " + ec.message() +
                                            " (see ASCEND_WORK_PATH)");
    }
  }
  if (auto ok = bank.check_writable(); !ok) return ok.error();

  const gdat::IterationModel model(profile, cluster);
  const std::size_t n = model.gradients();
  const auto summary = [&](const gdat::SplitStrategy& s) {
    return GdatSplit{s, s.size_percentages(profile), model.seconds(s)};
  };
  rep.model_hash = profile.hash();
  rep.cluster = cluster;
  rep.max_segments = options.max_segments;
  rep.gradients = n;
  rep.gradient_bytes = profile.total_bytes();
  rep.forward_seconds = profile.forward_seconds;
  rep.backward_seconds = model.backward_seconds();
  rep.baseline = summary(gdat::default_split(profile));
  const auto optimum = gdat::optimal_split(model, options.max_segments);
  rep.optimum = summary(optimum.split);
  rep.search_policy = options.search;

  const auto write_now = [&](bool durable) -> Result<void> {
    rep.tuning_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return write_report(rep, job.result_file, durable);
  };
  if (auto ok = write_now(false); !ok) return ok.error();

  const std::string cluster_key = gdat_cluster_key(cluster, options.max_segments);
  auto found = bank.lookup(rep.model_hash, cluster_key);
  if (!found) return found.error();
  std::optional<GdatSplit> stored;
  bool stale = false;
  if (found->has_value()) {
    if ((*found)->split.valid_for(n, options.max_segments)) {
      stored = summary((*found)->split);
    } else {
      stale = true;  // written for another gradient list: tune as if new, then replace it
    }
  }
  const bool baseline_fits = rep.baseline.split.segments() <= options.max_segments;

  const auto make_record = [&](const GdatSplit& s, std::string policy) {
    gdat::GradientFusionRecord r;
    r.model_hash = rep.model_hash;
    r.cluster = cluster_key;
    r.model_name = profile.name;
    for (const auto& g : profile.gradients) {
      r.gradient_time_us.push_back(g.backward_seconds * 1e6);
      r.gradient_size.push_back(g.bytes);
    }
    r.split = s.split;
    r.by_size = s.by_size;
    r.iteration_seconds = s.seconds;
    r.default_seconds = rep.baseline.seconds;
    r.provenance = Provenance{std::move(policy), rep.evaluations, detail::utc_timestamp()};
    return r;
  };

  if (stored && !options.repeat_tune) {
    rep.result = *stored;
    rep.strategy_source = "bank";
    rep.outcome = GdatOutcome::hit;
  } else {
    const gdat::SplitSpace space(n, options.max_segments);
    std::optional<GdatSplit> best;
    if (space.space().dimensions() > 0) {
      Tuner<AnySearch, gdat::SplitMeasure, MemoryRepository> tuner(
          std::move(*search), gdat::SplitMeasure(model, space), MemoryRepository{},
          TunerOptions{
              .seed = derive_seed(options.seed, detail::gdat_fnv1a(rep.model_hash + cluster_key)),
              .batch_size = options.batch_size});
      const TuningResult r = tuner.tune(
          space.space(),
          MaxEvaluations{options.budget.evaluations} || NoImprovement{options.budget.patience},
          detail::GdatObserver{options.stop, &options.on_progress, options.budget.evaluations});
      rep.evaluations = r.history.size();
      if (r.reason == StopReason::observer && options.stop != nullptr && options.stop->load()) {
        if (r.found()) rep.search_best = summary(space.decode(*r.best_configuration));
        rep.interrupted = true;
        rep.finished = true;
        if (auto ok = write_now(true); !ok) return ok.error();
        if (partial != nullptr) *partial = job;
        return make_error(Errc::interrupted,
                          "the job was interrupted; " + job.result_file.string() +
                              " holds what was found so far (tune tuning incomplete)");
      }
      if (r.found()) {
        best = summary(space.decode(*r.best_configuration));
        rep.evaluations += detail::drop_idle_cuts(model, *best, profile);
      }
    } else {
      // One segment at most, or one gradient: a single split exists.
      best = summary(gdat::SplitStrategy{{n - 1}});
      rep.evaluations = 1;
    }
    if (!best) best = summary(gdat::SplitStrategy{{n - 1}});  // a zero budget: nothing measured
    rep.search_best = best;
    std::string source = "search";
    if (options.exact && gdat::faster(rep.optimum.seconds, best->seconds)) {
      best = rep.optimum;
      source = "exact";
    }
    const std::optional<GdatSplit> reference =
        stored ? stored : (baseline_fits ? std::optional<GdatSplit>(rep.baseline) : std::nullopt);
    const bool better = !reference || gdat::faster(best->seconds, reference->seconds);
    if (better) {
      auto s = bank.store(make_record(*best, source == "exact" ? "exact" : options.search), stale);
      if (!s) return s.error();
      if (*s == StoreOutcome::kept) {
        // Another process stored a faster split meanwhile: ours was not written.
        rep.result = reference ? *reference : *best;
        rep.strategy_source = stored ? "bank" : (reference ? "default" : source);
        rep.outcome = stored ? GdatOutcome::reserved : GdatOutcome::unsatisfied;
      } else {
        rep.result = *best;
        rep.strategy_source = source;
        rep.outcome = stored ? GdatOutcome::update : GdatOutcome::add;
      }
    } else {
      rep.result = *reference;
      rep.strategy_source = stored ? "bank" : "default";
      rep.outcome = stored ? GdatOutcome::reserved : GdatOutcome::unsatisfied;
      if (!stored && options.record_unsatisfied) {
        auto s = bank.store(make_record(*reference, "default"), stale);
        if (!s) return s.error();
      }
    }
  }
  rep.timeline = model.timeline(rep.result->split);
  rep.baseline_timeline = model.timeline(rep.baseline.split);
  rep.finished = true;
  if (auto ok = write_now(true); !ok) return ok.error();
  return job;
}

}  // namespace aoe

#endif  // AOE_JOBS_GDAT_JOB_HPP
