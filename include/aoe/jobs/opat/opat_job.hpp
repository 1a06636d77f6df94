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
#include "aoe/jobs/job_skeleton.hpp"
#include "aoe/jobs/opat/opat_report.hpp"
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
using OpatBudget = JobBudget;

[[nodiscard]] inline Result<OpatBudget> opat_budget_preset(std::string_view level) {
  return job_budget_preset(level, {.evaluations = 400, .patience = 150},
                           {.evaluations = 1500, .patience = 500});
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

namespace detail {

/// What the job carries from one operator to the next.
struct OpatJobState {
  std::vector<KnowledgeKind> kinds;
  TransferHints hints;
  /// Every trial of the operators tuned so far, in task order, for a learned cost model.
  std::shared_ptr<TransferData> learned = std::make_shared<TransferData>();
  /// A key tuned earlier in this job that was not written (unsatisfied): reuse the outcome.
  std::map<TuningKey, KindPerformance> unsatisfied_in_job;
  std::set<TuningKey> tuned_keys;  ///< REPEAT_TUNE re-tunes each bank entry once per job
};

/// A configuration with its measurement: the default, or the bank's stored one.
struct Measured {
  Configuration configuration;
  Measurement measurement;
};

/// The bank's configuration for `key`, measured, when the space holds it and it runs (a stale
/// entry is as none: tuned as if new).
template <class Runner>
[[nodiscard]] Result<std::optional<Measured>> opat_stored(const KnowledgeBank& bank,
                                                          const TuningKey& key,
                                                          const Runner& runner) {
  auto found = bank.lookup(key);
  if (!found) return found.error();  // a bank that became unreadable: stop the job
  if (!found->has_value()) return std::optional<Measured>();
  const Space& space = runner.space();
  const auto cfg = space.find((*found)->configuration);
  if (!cfg || !space.is_valid(*cfg)) return std::optional<Measured>();
  Measurement m = runner.evaluate(*cfg);
  if (!m.ok()) return std::optional<Measured>();
  return std::optional<Measured>(Measured{*cfg, std::move(m)});
}

/// One knowledge kind of one operator: bank lookup -> tuning step -> bank accounting. Returns
/// false when the job must stop (interrupted); `rep.error` is set when the operator failed.
template <class Backend>
[[nodiscard]] Result<bool> opat_tune_kind(Backend& backend, const OperatorDesc& op,
                                          KnowledgeKind kind, KnowledgeBank& bank,
                                          const OpatOptions& options, OpatJobState& job,
                                          OpatOperatorReport& rep,
                                          std::vector<KindChoice>& choices) {
  auto runner = backend.create(op, kind);
  if (!runner) {
    rep.error = runner.error().message;
    return true;
  }
  const Space& space = runner->space();
  if (space.dimensions() == 0) return true;  // nothing of this kind to tune for this op
  Configuration def_cfg = runner->default_configuration();
  const Measurement def_m = runner->evaluate(def_cfg);
  const Measured def{std::move(def_cfg), def_m};
  if (!def.measurement.ok()) {
    rep.error = "the default policy fails on the device: " + def.measurement.message;
    return true;
  }
  const double def_us = def.measurement.value * 1e6;
  if (rep.kinds.empty()) rep.default_us = def_us;
  const TuningKey key = make_bank_key(op, kind, options.scope, options.impl_mode);
  auto stored = opat_stored(bank, key, *runner);
  if (!stored) return stored.error();
  KindPerformance perf{kind, def_us, def_us, OpatOutcome::unsatisfied};
  Configuration use = def.configuration;
  bool interrupted = false;
  const bool tuned_in_job = !job.tuned_keys.insert(key).second;
  if (*stored && (!options.repeat_tune || tuned_in_job)) {
    perf = {kind, def_us, (*stored)->measurement.value * 1e6, OpatOutcome::hit};
    use = (*stored)->configuration;
  } else if (const auto it = job.unsatisfied_in_job.find(key);
             !*stored && it != job.unsatisfied_in_job.end()) {
    perf = it->second;  // same computation as an operator before it: same outcome
  } else {
    // The search starts from what is known: the stored configuration, the default (both
    // measured above, handed back by KnownMeasure) and the winners of similar operators.
    SearchStart start;
    std::vector<std::pair<Configuration, Measurement>> known{{def.configuration, def.measurement}};
    if (*stored) {
      start.initial.push_back((*stored)->configuration);
      known.emplace_back((*stored)->configuration, (*stored)->measurement);
    }
    start.initial.push_back(def.configuration);
    const std::vector<Feature> context = operator_features(op, kind, options.scope);
    start.context = context;
    // The job's trials so far (shared: appended to only after this search has ended) and
    // the bank's records as it stood when the job started.
    start.prior = job.hints.prior(job.learned, kind, space);
    const std::string op_text = operator_key_text(op, options.impl_mode);
    for (const auto& values : job.hints.nearest(kind, op_text, options.transfer_hints)) {
      if (auto c = project_onto(space, values, def.configuration)) start.initial.push_back(*c);
    }
    // The tuning step (job_skeleton.hpp): an executor may run it elsewhere.
    using Runner = std::remove_cvref_t<decltype(*runner)>;
    const TuningResult r =
        tune_step(space, std::move(*make_opat_search(options.search, start)),
                  KnownMeasure<ParallelMeasure<Runner>>(
                      ParallelMeasure<Runner>(*runner, options.parallel), std::move(known)),
                  derive_seed(options.seed, fnv1a(key.problem) + (*stored ? 1 : 0)),
                  StepLimits{options.budget, options.batch_size, options.stop});
    rep.evaluations += r.history.size();
    perf.best_so_far_us = best_so_far_us(r.history);
    append_trials(*job.learned, context, space, r.history);
    interrupted = r.reason == StopReason::observer;
    const Measured& from = *stored ? **stored : def;
    perf.before_us = perf.after_us = from.measurement.value * 1e6;
    use = from.configuration;
    const auto record = [&](const Configuration& c, double value, std::string policy) {
      return bank.store(Record{key, space.named_values(c), value,
                               Provenance{std::move(policy), r.history.size(), utc_timestamp()}});
    };
    auto acc = account(
        stored->has_value(), interrupted, r.found() && r.best_value < from.measurement.value,
        options.record_unsatisfied,
        [&] { return record(*r.best_configuration, r.best_value, std::string(r.policy)); },
        [&] { return record(def.configuration, def.measurement.value, "default"); });
    if (!acc) return acc.error();
    perf.outcome = acc->outcome;
    if (acc->use_found) {
      perf.after_us = r.best_value * 1e6;
      use = *r.best_configuration;
      job.hints.add(kind, op_text, space.named_values(use), true);
    } else if (!*stored && !interrupted && !options.record_unsatisfied) {
      job.unsatisfied_in_job.emplace(key, perf);
    }
  }
  choices.push_back(
      {kind, space.named_values(use), space.named_values(def.configuration), perf.after_us});
  rep.kinds.push_back(perf);
  return !interrupted;
}

/// One fused operator, every knowledge kind of it, settled.
struct OpatTask {
  OpatOperatorReport report;
  TunedOperator chosen;
  bool interrupted = false;
};

template <class Backend>
[[nodiscard]] Result<OpatTask> opat_tune_operator(Backend& backend, const FusedOperator& f,
                                                  KnowledgeBank& bank, const OpatOptions& options,
                                                  OpatJobState& job) {
  OpatTask task{{}, {f.nodes, f.op.name, f.op.type, {}, 0, 0}, false};
  OpatOperatorReport& rep = task.report;
  rep.op_name = f.op.name;
  rep.op_type = f.op.type;
  std::vector<KindChoice> choices;
  for (std::size_t k = 0; k < job.kinds.size() && rep.error.empty() && !task.interrupted; ++k) {
    auto go_on = opat_tune_kind(backend, f.op, job.kinds[k], bank, options, job, rep, choices);
    if (!go_on) return go_on.error();
    task.interrupted = !*go_on;
  }
  rep.result_us = rep.default_us;
  if (rep.error.empty() && rep.kinds.empty()) return task;  // nothing tunable in it
  if (rep.error.empty() && !task.interrupted) {
    rep.result_us = settle_operator(backend, f.op, choices, rep);
  }
  for (auto& c : choices) {
    task.chosen.knowledge.emplace_back(std::string(to_string(c.kind)), std::move(c.use));
  }
  rep.knowledge = task.chosen.knowledge;
  task.chosen.default_us = rep.default_us;
  task.chosen.result_us = rep.result_us;
  return task;
}

/// What OPAT carries over the job: the kinds tuned and the bank's hints.
[[nodiscard]] inline Result<OpatJobState> opat_job_state(const KnowledgeBank& bank,
                                                         const OpatOptions& options) {
  OpatJobState job;
  job.kinds.push_back(KnowledgeKind::schedule);
  if (options.format_tuning) job.kinds.push_back(KnowledgeKind::format);
  if (options.impl_tuning) job.kinds.push_back(KnowledgeKind::impl);
  if (options.transfer_hints > 0) {
    auto read = TransferHints::from_bank(bank, options.scope, job.kinds);
    if (!read) return read.error();
    job.hints = std::move(*read);
  }
  return job;
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
  OpatJobResult out;
  auto frame = JobFrame<OpatReport>::start(out.report, graph.name, options.result_dir, "opat");
  if (!frame) return frame.error();
  out.result_file = frame->result_file();
  out.tuned_model_file = options.tuned_model.value_or(
      default_tuned_model_path(options.result_dir, graph.name, out.report.timestamp));
  if (auto ok = bank.check_writable(options.scope); !ok) return ok.error();
  if (auto ok = make_opat_search(options.search); !ok) return ok.error();
  auto job = detail::opat_job_state(bank, options);
  if (!job) return job.error();
  const auto fused = fuse(graph);
  std::vector<const FusedOperator*> tasks;
  for (const auto& f : fused) {
    if (detail::selected(f.op, options.tune_ops_names, options.tune_ops_types)) tasks.push_back(&f);
  }
  // The report and the tuned model are renamed into place (atomic, valid at every moment) but
  // not fsynced: they are outputs a job can rebuild; the bank, which it cannot, is.
  if (auto ok = frame->write(); !ok) return ok.error();
  std::vector<TunedOperator> tuned;
  const auto stopping = [&] { return options.stop != nullptr && options.stop->load(); };
  const auto event = [&](OpatEvent::Kind kind, std::size_t t, const OpatOperatorReport* op) {
    if (options.on_event) {
      options.on_event({kind, t, tasks.size(), op, tasks[t]->op.name, tasks[t]->op.type});
    }
  };
  for (std::size_t t = 0; t < tasks.size() && !stopping(); ++t) {
    event(OpatEvent::Kind::started, t, nullptr);
    auto task = detail::opat_tune_operator(backend, *tasks[t], bank, options, *job);
    if (!task) return task.error();
    const OpatOperatorReport& rep = task->report;
    if (rep.error.empty() && rep.kinds.empty()) continue;  // nothing tunable in it
    if (!task->interrupted) {
      out.report.operators.push_back(rep);
      if (rep.error.empty()) tuned.push_back(std::move(task->chosen));
    }
    // Rewritten after every operator that was tuned or failed; bank hits (microseconds each)
    // are folded into the next write, and the job's end writes the file in any case.
    if (rep.evaluations > 0 || !rep.error.empty() || task->interrupted) {
      if (auto ok = frame->write(); !ok) return ok.error();
    }
    if (task->interrupted) break;
    event(OpatEvent::Kind::finished, t, &out.report.operators.back());
  }
  if (auto ok = frame->finish(stopping(), false, out, partial); !ok) return ok.error();
  if (auto ok = write_tuned_model(graph, tuned, out.tuned_model_file); !ok) return ok.error();
  return out;
}

}  // namespace aoe

#endif  // AOE_JOBS_OPAT_JOB_HPP
