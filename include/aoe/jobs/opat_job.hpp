// The OPAT job (operator tuning, AOE job_type 2): graph -> fusion -> one task per fused operator
// -> bank lookup -> tune Schedule (and Format, Impl) on aoe::Tuner -> account each operator as
// hit / add / update / reserved / unsatisfied / failed -> result file rewritten after every
// operator -> tuned model (ascend-aoe-facts.md §2.5, §4.1; seeds/aoe-subgraph-operator-tuning.txt).
#ifndef AOE_JOBS_OPAT_JOB_HPP
#define AOE_JOBS_OPAT_JOB_HPP

#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/core/stop_conditions.hpp"
#include "aoe/core/tuner.hpp"
#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/jobs/detail/transfer.hpp"
#include "aoe/jobs/opat_report.hpp"
#include "aoe/jobs/parallel_measure.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"
#include "aoe/repo/bank_key.hpp"
#include "aoe/repo/knowledge_bank.hpp"
#include "aoe/repo/memory_repository.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/search/evolutionary.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// AOE's --tune_optimization_level budget presets: O2 "normal" (AOE's default) and O1 "high
/// performance" (AOE: "multiplies tuning time"). Evaluations per operator and knowledge kind,
/// and the evaluations without improvement after which a kind's tuning stops.
struct OpatBudget {
  std::size_t evaluations = 0;
  std::size_t patience = 0;
};

[[nodiscard]] inline Result<OpatBudget> opat_budget_preset(std::string_view level) {
  if (level == "O2") return OpatBudget{.evaluations = 400, .patience = 150};
  if (level == "O1") return OpatBudget{.evaluations = 1500, .patience = 500};
  return make_error(Errc::invalid_argument, "--tune_optimization_level='" + std::string(level) +
                                                "': expected O1 (high performance) or O2 "
                                                "(normal, the default)");
}

/// The search policy OPAT uses for `name`: "evolutionary" is a genetic search configured for
/// operator schedules (AOE's own Schedule tuner is a GA; ascend-aoe-facts.md §4.1), with a
/// smaller population than AOE's 50 because our budget per operator is smaller; every other
/// name is `make_search(name, start)`. `start.initial` are measured first
/// (docs/search.md#transfer).
[[nodiscard]] inline Result<AnySearch> make_opat_search(std::string_view name,
                                                        const SearchStart& start = {}) {
  if (name == "evolutionary") {
    EvolutionaryOptions o;
    o.initial = start.initial;
    o.population = 24;
    o.elite = 2;
    o.mutation_min = 0.05;
    o.mutation_max = 0.25;
    o.step_mutation = 0.7;
    return AnySearch(Evolutionary<>(o));
  }
  return make_search(name, start);
}

/// What happened, for a progress display.
struct OpatEvent {
  enum class Kind : std::uint8_t { started, finished } kind = Kind::started;
  std::size_t index = 0;                   ///< of the operator, 0-based
  std::size_t count = 0;                   ///< operators in the job
  const OpatOperatorReport* op = nullptr;  ///< on finished
  std::string op_name;
  std::string op_type;
};

/// Options of an OPAT job. Aggregate: `aoe::OpatOptions{.search = "bayesian"}`.
struct OpatOptions {
  BankScope scope{};
  std::string search = "evolutionary";  ///< a name of aoe::make_search
  OpatBudget budget{.evaluations = 400, .patience = 150};
  std::uint64_t seed = 0;
  bool repeat_tune = false;                    ///< REPEAT_TUNE: re-tune operators the bank holds
  bool format_tuning = false;                  ///< --Fop_format: also tune the Format knowledge
  bool impl_tuning = false;                    ///< also tune the Impl knowledge
  std::string impl_mode = "high_performance";  ///< part of the bank key, as AOE's impl mode
  int parallel = 8;                            ///< TUNING_PARALLEL_NUM
  std::size_t batch_size = 8;                  ///< candidates proposed and measured together
  /// Transfer (docs/search.md#transfer): the search of an operator starts from the default
  /// configuration, the bank's stored one (REPEAT_TUNE) and the winners of up to this many of
  /// the most similar operators (the bank as it stood when the job started, then operators
  /// tuned earlier in this job; other SoCs' banks after this SoC's). 0: no similar operators.
  std::size_t transfer_hints = 4;
  /// Record an unsatisfied operator (nothing better than the default found) in the bank with
  /// the default policy (provenance policy "default"), so the next job counts it as a hit
  /// instead of tuning it again. AOE writes nothing for it; false does the same.
  bool record_unsatisfied = true;
  /// --tune_ops_file: only operators with one of these names, or whose (fused) type contains
  /// one of these types, are tuned; both empty means all.
  std::vector<std::string> tune_ops_names{};
  std::vector<std::string> tune_ops_types{};
  std::filesystem::path result_dir = ".";  ///< ASCEND_WORK_PATH or the working dir
  std::optional<std::filesystem::path> tuned_model = std::nullopt;  ///< --output
  const std::atomic<bool>* stop = nullptr;           ///< set by SIGINT/SIGTERM: end cleanly
  std::function<void(const OpatEvent&)> on_event{};  ///< progress
};

/// What a job produced.
struct OpatJobResult {
  OpatReport report;
  std::filesystem::path result_file;
  std::filesystem::path tuned_model_file;
};

namespace detail {

/// FNV-1a: a seed per bank key that does not depend on the standard library's std::hash.
inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

/// Stops a tuning run when the job is asked to stop.
struct StopFlagObserver {
  const std::atomic<bool>* stop;
  [[nodiscard]] bool on_batch(std::span<const Trial> /*trials*/,
                              const TuningState& /*state*/) const {
    return stop != nullptr && stop->load();
  }
};

/// The best value so far after each trial, in microseconds (NaN before the first valid one).
inline std::vector<double> best_so_far_us(const std::vector<Trial>& history) {
  std::vector<double> out;
  out.reserve(history.size());
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const auto& t : history) {
    if (t.measurement.ok() && !(t.measurement.value * 1e6 >= best))
      best = t.measurement.value * 1e6;
    out.push_back(best);
  }
  return out;
}

inline bool selected(const OperatorDesc& op, const std::vector<std::string>& names,
                     const std::vector<std::string>& types) {
  if (names.empty() && types.empty()) return true;
  for (const auto& n : names) {
    if (op.name == n) return true;
  }
  std::vector<std::string> members = op.members;
  if (members.empty()) members.push_back(op.type);
  for (const auto& t : types) {
    for (const auto& m : members) {
      if (m == t) return true;
    }
  }
  return false;
}

/// One knowledge kind's outcome for an operator: the values in use after the job, the default
/// values, and the operator's measured time with this kind's choice and the others at default.
struct KindChoice {
  KnowledgeKind kind = KnowledgeKind::schedule;
  std::vector<NamedValue> use;
  std::vector<NamedValue> def;
  double after_us = 0;
  [[nodiscard]] bool changed() const { return use != def; }
};

template <class Backend>
concept combined_backend = requires(const Backend& b, const OperatorDesc& op,
                                    std::span<const KnowledgeKind> kinds) {
  b.create_combined(op, kinds);
};

inline std::string kind_names(const std::vector<KindChoice>& choices,
                              const std::vector<std::size_t>& which) {
  std::string s;
  for (const std::size_t i : which)
    s += (s.empty() ? "" : "+") + std::string(to_string(choices[i].kind));
  return s;
}

/// The operator's time after the job, from measurements only. One kind changed: its
/// measurement. Several: the combined choice is measured once (the kinds interact, so the
/// product of their ratios is no measurement); when one kind alone is faster than the
/// combination, or the device cannot run them together, that kind is kept and the others go
/// back to their defaults. `rep.note` says which.
template <class Backend>
[[nodiscard]] double settle_operator(const Backend& backend, const OperatorDesc& op,
                                     std::vector<KindChoice>& choices, OpatOperatorReport& rep) {
  std::vector<std::size_t> changed;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].changed()) changed.push_back(i);
  }
  if (changed.empty()) return rep.default_us;
  std::size_t best = changed.front();
  for (const std::size_t i : changed) {
    if (choices[i].after_us < choices[best].after_us) best = i;
  }
  const double single = choices[best].after_us;
  if (changed.size() == 1) return single;
  std::optional<double> combined;
  std::string why = "the device cannot measure the kinds together";
  if constexpr (combined_backend<Backend>) {
    std::vector<KnowledgeKind> kinds;
    std::vector<NamedValue> values;
    for (const auto& c : choices) {
      kinds.push_back(c.kind);
      values.insert(values.end(), c.use.begin(), c.use.end());
    }
    auto runner = backend.create_combined(op, kinds);
    if (!runner) {
      why = runner.error().message;
    } else if (const auto cfg = runner->space().find(values); !cfg) {
      why = "the kinds' choices are not one configuration of the combined space";
    } else if (const Measurement m = runner->evaluate(*cfg); !m.ok()) {
      why = "the combination fails on the device: " + m.message;
    } else {
      combined = m.value * 1e6;
    }
  }
  const auto us = [](double v) {
    std::array<char, 32> b{};
    std::snprintf(b.data(), b.size(), "%.3f us", v);
    return std::string(b.data());
  };
  const std::string together = kind_names(choices, changed);
  const std::string alone = std::string(to_string(choices[best].kind));
  if (combined && *combined <= single) {
    rep.note = together + " measured together: " + us(*combined);
    return *combined;
  }
  for (const std::size_t i : changed) {
    if (i != best) choices[i].use = choices[i].def;
  }
  rep.note = (combined ? together + " measured together: " + us(*combined) + ", slower than " +
                             alone + " alone"
                       : together + " not measured together (" + why + ")") +
             "; kept " + alone + " only (" + us(single) + ")";
  return single;
}

}  // namespace detail

/// Runs OPAT on `graph`. `backend.create(const OperatorDesc&, KnowledgeKind)` returns a
/// `Result<R>` for a runner R with `space()`, `default_configuration()` and a thread-safe
/// `evaluate(const Configuration&) const -> Measurement` (aoe::Runner<device::Simulator> through
/// jobs/simulator_backend.hpp). Errors are those of the environment (bank, result file); an
/// operator that cannot be tuned is reported in `tuning_failed_operators` and the job goes on.
/// When `options.stop` is set during the job, the job ends after the current batch with the
/// report marked "tune tuning incomplete" and returns Errc::interrupted with the result in
/// `partial`.
template <class Backend>
[[nodiscard]] Result<OpatJobResult> run_opat(const Graph& graph, Backend& backend,
                                             KnowledgeBank& bank, const OpatOptions& options,
                                             OpatJobResult* partial = nullptr) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  OpatJobResult job;
  job.report.tuning_name = graph.name;
  job.report.timestamp = aoe_timestamp();
  job.report.tid = static_cast<long>(::gettid());
  job.result_file = options.result_dir / opat_result_file_name(job.report.timestamp);
  job.tuned_model_file = options.tuned_model.value_or(
      default_tuned_model_path(options.result_dir, graph.name, job.report.timestamp));
  {
    std::error_code ec;
    std::filesystem::create_directories(options.result_dir, ec);
    if (ec) {
      return make_error(Errc::io_error, "cannot create the work directory " +
                                            options.result_dir.string() + ": " + ec.message() +
                                            " (see ASCEND_WORK_PATH)");
    }
  }
  if (auto ok = bank.check_writable(options.scope); !ok) return ok.error();
  if (auto ok = make_opat_search(options.search); !ok) return ok.error();

  std::vector<KnowledgeKind> kinds{KnowledgeKind::schedule};
  if (options.format_tuning) kinds.push_back(KnowledgeKind::format);
  if (options.impl_tuning) kinds.push_back(KnowledgeKind::impl);
  detail::TransferHints hints;
  if (options.transfer_hints > 0) {
    auto read = detail::TransferHints::from_bank(bank, options.scope, kinds);
    if (!read) return read.error();
    hints = std::move(*read);
  }
  // Every trial of the operators tuned so far, in task order, for a learned cost model.
  auto learned = std::make_shared<TransferData>();

  const auto fused = fuse(graph);
  std::vector<const FusedOperator*> tasks;
  for (const auto& f : fused) {
    if (detail::selected(f.op, options.tune_ops_names, options.tune_ops_types)) {
      tasks.push_back(&f);
    }
  }
  std::vector<TunedOperator> tuned;
  // The report and the tuned model are renamed into place (atomic, valid at every moment) but
  // not fsynced: they are outputs a job can rebuild; the bank, which it cannot, is.
  const auto write_now = [&]() -> Result<void> {
    job.report.tuning_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return write_report(job.report, job.result_file, false);
  };
  if (auto ok = write_now(); !ok) return ok.error();

  // A key tuned earlier in this job that was not written (unsatisfied): reuse the outcome.
  std::map<TuningKey, KindPerformance> unsatisfied_in_job;
  std::set<TuningKey> tuned_keys;
  const auto stopping = [&] { return options.stop != nullptr && options.stop->load(); };

  for (std::size_t t = 0; t < tasks.size() && !stopping(); ++t) {
    const FusedOperator& f = *tasks[t];
    if (options.on_event) {
      options.on_event({OpatEvent::Kind::started, t, tasks.size(), nullptr, f.op.name, f.op.type});
    }
    OpatOperatorReport rep;
    rep.op_name = f.op.name;
    rep.op_type = f.op.type;
    TunedOperator chosen{f.nodes, f.op.name, f.op.type, {}, 0, 0};
    bool interrupted = false;
    std::vector<detail::KindChoice> choices;
    for (std::size_t k = 0; k < kinds.size() && rep.error.empty(); ++k) {
      const KnowledgeKind kind = kinds[k];
      auto runner = backend.create(f.op, kind);
      if (!runner) {
        rep.error = runner.error().message;
        break;
      }
      const Space& space = runner->space();
      if (space.dimensions() == 0) continue;  // nothing of this kind to tune for this op
      const Configuration def = runner->default_configuration();
      const Measurement m0 = runner->evaluate(def);
      if (!m0.ok()) {
        rep.error = "the default policy fails on the device: " + m0.message;
        break;
      }
      if (rep.kinds.empty()) rep.default_us = m0.value * 1e6;
      const TuningKey key = make_bank_key(f.op, kind, options.scope, options.impl_mode);
      auto found = bank.lookup(key);
      if (!found) return found.error();  // a bank that became unreadable: stop the job
      std::optional<Configuration> stored_cfg;
      double stored_value = 0;
      Measurement ms;
      if (found->has_value()) {
        stored_cfg = space.find((*found)->configuration);
        if (stored_cfg && space.is_valid(*stored_cfg)) {
          ms = runner->evaluate(*stored_cfg);
          if (ms.ok()) {
            stored_value = ms.value;
          } else {
            stored_cfg.reset();  // stale entry: tune as if new
          }
        } else {
          stored_cfg.reset();
        }
      }
      KindPerformance perf{kind, m0.value * 1e6, m0.value * 1e6, OpatOutcome::unsatisfied};
      Configuration use = def;
      // REPEAT_TUNE re-tunes each bank entry once per job; a later operator with the same key
      // uses what this job left in the bank.
      const bool tuned_in_job = !tuned_keys.insert(key).second;
      if (stored_cfg && (!options.repeat_tune || tuned_in_job)) {
        perf.outcome = OpatOutcome::hit;
        perf.after_us = stored_value * 1e6;
        use = *stored_cfg;
      } else if (const auto it = unsatisfied_in_job.find(key);
                 !stored_cfg && it != unsatisfied_in_job.end()) {
        perf = it->second;  // same computation as an operator before it: same outcome
      } else {
        // The search starts from what is known: the stored configuration, the default (both
        // measured above, handed back by KnownMeasure) and the winners of similar operators.
        SearchStart start;
        std::vector<std::pair<Configuration, Measurement>> known{{def, m0}};
        if (stored_cfg) {
          start.initial.push_back(*stored_cfg);
          known.emplace_back(*stored_cfg, ms);
        }
        start.initial.push_back(def);
        const std::vector<Feature> context = detail::operator_features(f.op, kind, options.scope);
        start.context = context;
        // The job's trials so far (shared: appended to only after this search has ended) and
        // the bank's records as it stood when the job started.
        start.prior = hints.prior(learned, kind, space);
        const std::string op_text = operator_key_text(f.op, options.impl_mode);
        for (const auto& values : hints.nearest(kind, op_text, options.transfer_hints)) {
          if (auto c = detail::project_onto(space, values, def)) start.initial.push_back(*c);
        }
        using Measure =
            detail::KnownMeasure<ParallelMeasure<std::remove_cvref_t<decltype(*runner)>>>;
        Tuner<AnySearch, Measure, MemoryRepository> tuner(
            std::move(*make_opat_search(options.search, start)),
            Measure(
                ParallelMeasure<std::remove_cvref_t<decltype(*runner)>>(*runner, options.parallel),
                std::move(known)),
            MemoryRepository{},
            TunerOptions{.seed = derive_seed(options.seed,
                                             detail::fnv1a(key.problem) + (stored_cfg ? 1 : 0)),
                         .batch_size = options.batch_size});
        const TuningResult r = tuner.tune(
            space,
            MaxEvaluations{options.budget.evaluations} || NoImprovement{options.budget.patience},
            detail::StopFlagObserver{options.stop});
        rep.evaluations += r.history.size();
        perf.best_so_far_us = detail::best_so_far_us(r.history);
        append_trials(*learned, context, space, r.history);
        interrupted = r.reason == StopReason::observer;
        const double reference = stored_cfg ? stored_value : m0.value;
        perf.before_us = reference * 1e6;
        perf.after_us = reference * 1e6;
        if (stored_cfg) use = *stored_cfg;
        if (interrupted) {
          perf.outcome = stored_cfg ? OpatOutcome::reserved : OpatOutcome::unsatisfied;
        } else if (r.found() && r.best_value < reference) {
          Record rec{key, space.named_values(*r.best_configuration), r.best_value,
                     Provenance{std::string(r.policy), r.history.size(), detail::utc_timestamp()}};
          auto s = bank.store(rec);
          if (!s) return s.error();
          perf.outcome = stored_cfg ? OpatOutcome::update : OpatOutcome::add;
          if (*s == StoreOutcome::kept) {
            // Another process stored a better one meanwhile: ours was not written.
            perf.outcome = stored_cfg ? OpatOutcome::reserved : OpatOutcome::unsatisfied;
          } else {
            perf.after_us = r.best_value * 1e6;
            use = *r.best_configuration;
            hints.add(kind, op_text, rec.configuration, true);
          }
        } else {
          perf.outcome = stored_cfg ? OpatOutcome::reserved : OpatOutcome::unsatisfied;
          if (!stored_cfg && options.record_unsatisfied) {
            // The default policy is the best found: say so in the bank (policy "default"), so
            // that the next job reuses it instead of tuning the same shape again.
            Record rec{key, space.named_values(def), m0.value,
                       Provenance{"default", r.history.size(), detail::utc_timestamp()}};
            auto s = bank.store(rec);
            if (!s) return s.error();
          } else if (!stored_cfg) {
            unsatisfied_in_job.emplace(key, perf);
          }
        }
        if (!stored_cfg) perf.before_us = m0.value * 1e6;
      }
      choices.push_back({kind, space.named_values(use), space.named_values(def), perf.after_us});
      rep.kinds.push_back(perf);
      if (interrupted) break;
    }
    if (rep.error.empty() && rep.kinds.empty()) continue;  // nothing tunable in it
    rep.result_us = rep.default_us;
    if (rep.error.empty() && !interrupted) {
      rep.result_us = detail::settle_operator(backend, f.op, choices, rep);
    }
    for (auto& c : choices)
      chosen.knowledge.emplace_back(std::string(to_string(c.kind)), std::move(c.use));
    rep.knowledge = chosen.knowledge;
    chosen.default_us = rep.default_us;
    chosen.result_us = rep.result_us;
    if (!interrupted) {
      job.report.operators.push_back(rep);
      if (rep.error.empty()) tuned.push_back(std::move(chosen));
    }
    // Rewritten after every operator that was tuned or failed; bank hits (microseconds each)
    // are folded into the next write, and the job's end writes the file in any case.
    if (rep.evaluations > 0 || !rep.error.empty() || interrupted) {
      if (auto ok = write_now(); !ok) return ok.error();
    }
    if (options.on_event && !interrupted) {
      options.on_event({OpatEvent::Kind::finished, t, tasks.size(), &job.report.operators.back(),
                        f.op.name, f.op.type});
    }
    if (interrupted) break;
  }

  job.report.interrupted = stopping();
  job.report.finished = true;
  if (auto ok = write_now(); !ok) return ok.error();
  if (!job.report.interrupted) {
    if (auto ok = write_tuned_model(graph, tuned, job.tuned_model_file); !ok) return ok.error();
  }
  if (job.report.interrupted) {
    if (partial != nullptr) *partial = job;
    return make_error(Errc::interrupted,
                      "the job was interrupted; " + job.result_file.string() +
                          " holds what was found so far (tune tuning incomplete)");
  }
  return job;
}

}  // namespace aoe

#endif  // AOE_JOBS_OPAT_JOB_HPP
