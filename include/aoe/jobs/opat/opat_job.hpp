// The OPAT job (operator tuning, AOE job_type 2): graph -> fusion -> one task per fused operator
// -> bank lookup -> tune Schedule (and Format, Impl) on aoe::Tuner -> account each operator as
// hit / add / update / reserved / unsatisfied / failed -> result file rewritten after every
// operator -> tuned model (docs/cli.md#what-a-job-does; AOE's OPAT, its bank and result file, with
// sources: docs/aoe-facts.md).
#ifndef AOE_JOBS_OPAT_JOB_HPP
#define AOE_JOBS_OPAT_JOB_HPP

// What every job uses comes with the skeleton (job_skeleton.hpp), and the pieces of this
// job's folder bring what they use; OPAT adds:
#include "aoe/graph/fusion.hpp"
#include "aoe/jobs/detail/transfer.hpp"
#include "aoe/jobs/job_driver.hpp"
#include "aoe/jobs/job_run.hpp"
#include "aoe/jobs/job_skeleton.hpp"
#include "aoe/jobs/opat/opat_report.hpp"
#include "aoe/jobs/parallel_measure.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/vocab/timing.hpp"

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace aoe {

/// AOE's --tune_optimization_level budget presets: O2 "normal" (AOE's default) and O1 "high
/// performance" (AOE: "multiplies tuning time"). Evaluations per operator and knowledge kind,
/// and the evaluations without improvement after which a kind's tuning stops.
using OpatBudget = JobBudget;

inline constexpr JobBudgetPresets opat_budget_preset{.o2 = {.evaluations = 400, .patience = 150},
                                                     .o1 = {.evaluations = 1500, .patience = 500}};

/// The search policy OPAT uses for `name`: "evolutionary" is a genetic search configured for
/// operator schedules (AOE's own Schedule tuner is a GA;
/// docs/aoe-facts.md#operator-tuning-schedule-format-impl), with a smaller population than
/// AOE's 50 because our budget per operator is smaller; every other name is
/// `make_search(name, start)`. `start.initial` are measured first (docs/search.md#transfer).
/// (A template, as `make_search` is, so that including this header instantiates no policy
/// until it is called.)
template <class = void>
[[nodiscard]] Result<AnySearch> make_opat_search(std::string_view name,
                                                 const SearchStart& start = {}) {
  if (name == "evolutionary") {
    EvolutionaryOptions o = job_evolutionary_options();
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

/// What happened, for a progress display: an operator started or finished, and its type.
struct OpatEvent : JobTaskEvent<OpatOperatorReport> {
  std::string op_type;  ///< the operator's (fused) type
};

/// The tuning step of one knowledge kind of one operator, as any rank can run it
/// (`opat_step`): the operator by its index in `fuse(graph)`, and everything else the step
/// reads. Serialised between ranks by include/aoe/mpi/job_wire.hpp.
struct OpatStepRequest {
  std::uint64_t op = 0;  ///< the operator's index in fuse(graph)
  KnowledgeKind kind = KnowledgeKind::schedule;
  std::string search;
  JobBudget budget;
  std::uint64_t batch_size = 8;
  std::int32_t parallel = 8;  ///< TUNING_PARALLEL_NUM
  std::uint64_t seed = 0;
  std::uint64_t seed_stored = 0;  ///< the seed when the stored configuration runs
  /// The kind's default and the bank's configuration (as the plan read the bank), measured
  /// first and handed back in `StepOutcome::measured_first`: a default that fails ends the step.
  Configuration def;
  std::optional<Configuration> stored;
  bool tune = true;            ///< false: only the measurements above
  bool hit_if_stored = false;  ///< no search when the stored configuration runs (a bank hit)
  /// Measured first by the search, after the stored configuration (when it runs) and the
  /// default: the winners of similar operators (docs/search.md#transfer).
  std::vector<Configuration> initial;
  std::vector<Feature> context;               ///< the operator's features
  std::shared_ptr<const TransferData> prior;  ///< what a learned model starts from
  /// Not empty: no tuning, the step measures these configurations (in order) and hands them
  /// back as its history (what the bank holds when a repeated key is accounted).
  std::vector<Configuration> measure_only;
  Objective objective{};  ///< what the search minimises (OpatOptions::objective)
};

/// Options of an OPAT job. Aggregate: `aoe::OpatOptions{.search = "bayesian"}`.
struct OpatOptions {
  BankScope scope{};
  /// A name of aoe::make_search. "analytic": pre-screening by the analytic cost model
  /// (docs/search.md#the-analytic-cost-model), ahead of "evolutionary" at every budget measured.
  std::string search = "analytic";
  OpatBudget budget = opat_budget_preset.o2;
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
  /// --tune_ops_file: only operators with one of these names, or whose (fused) type contains
  /// one of these types, are tuned; both empty means all.
  std::vector<std::string> tune_ops_names{};
  std::vector<std::string> tune_ops_types{};
  std::optional<std::filesystem::path> tuned_model = std::nullopt;  ///< --output
  /// --objective (docs/energy.md#operator-tuning-for-energy-aoe---objective): what each operator's
  /// search minimises and what the job compares, and settles, by. Another objective than plain time
  /// keys the bank apart (Objective::key_suffix: a time bank is never read or written by it)
  /// and needs a backend whose measurements carry energy (the simulator's).
  Objective objective{};
  /// The work directory, whether an unsatisfied operator (nothing faster than its default
  /// found) is recorded, the stop flag, the progress callback and where the steps run.
  JobRun<OpatEvent, OpatStepRequest, StepOutcome> run{};
};

/// What a job produced: the report, the result file and the tuned model.
struct OpatJobResult : JobResult<OpatReport> {
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

/// What a valid measurement scores under the job's objective (smaller is better): its seconds
/// for plain time; otherwise objective_score, and infinity over the power cap or without energy.
[[nodiscard]] inline double opat_score(const Measurement& m, const Objective& o) {
  if (o.plain_time()) return m.value;
  if (!m.ok() || !under_cap(m, o)) return std::numeric_limits<double>::infinity();
  return objective_score(m, o).value_or(std::numeric_limits<double>::infinity());
}

/// The joules of a measurement, where it has them.
[[nodiscard]] inline std::optional<double> joules_of(const Measurement& m) {
  if (!m.energy) return std::nullopt;
  return m.energy->joules;
}

/// An objective other than plain time: the search's valid trials under the cap, (us, J), into
/// `perf`, and their time-energy front; for pareto also its configurations, for the bank
/// (`members`, by time).
inline void opat_trials_front(const std::vector<Trial>& history, const Objective& o,
                              KindPerformance& perf, const Space& space,
                              std::vector<FrontMember>& members) {
  if (o.plain_time()) return;
  std::vector<FrontPoint> front;
  std::vector<const Configuration*> configurations;
  for (const auto& t : history) {
    if (!t.measurement.ok() || !t.measurement.energy || !under_cap(t.measurement, o)) continue;
    const FrontPoint p{t.measurement.value, t.measurement.energy->joules, perf.trials_us_j.size()};
    perf.trials_us_j.emplace_back(p.seconds * 1e6, p.joules);
    configurations.push_back(&t.configuration);
    add_to_front(front, p);
  }
  for (const auto& p : front) {
    perf.front.push_back(p.index);
    if (o.kind == ObjectiveKind::pareto) {
      members.push_back({space.named_values(*configurations[p.index]), p.seconds, p.joules});
    }
  }
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
  /// What the choice scores under the job's objective (opat_score, in us for plain time: then
  /// `after_us`), and its joules where known.
  double after_score = 0;
  std::optional<double> after_j{};
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

/// The measure of the several changed kinds `choices` of `op` together on one runner (when the
/// device can): the combination into `combined`, the `best` kind's choice alone (the others at
/// their defaults) into `alone`; `why` says what failed.
template <class Backend>
void measure_together(const Backend& backend, const OperatorDesc& op,
                      const std::vector<KindChoice>& choices, std::size_t best,
                      std::optional<Measurement>& combined, std::optional<Measurement>& alone,
                      std::string& why) {
  if constexpr (combined_backend<Backend>) {
    std::vector<KnowledgeKind> kinds;
    std::vector<NamedValue> values;
    std::vector<NamedValue> alone_values;  // the best kind's choice, the others at default
    for (std::size_t i = 0; i < choices.size(); ++i) {
      kinds.push_back(choices[i].kind);
      values.insert(values.end(), choices[i].use.begin(), choices[i].use.end());
      const auto& v = i == best ? choices[i].use : choices[i].def;
      alone_values.insert(alone_values.end(), v.begin(), v.end());
    }
    auto runner = backend.create_combined(op, kinds);
    if (!runner) {
      why = runner.error().message;
    } else if (const auto cfg = runner->space().find(values); !cfg) {
      why = "the kinds' choices are not one configuration of the combined space";
    } else if (Measurement m = runner->evaluate(*cfg); !m.ok()) {
      why = "the combination fails on the device: " + m.message;
    } else {
      combined = std::move(m);
      // Measured the same way as the combination, when the device can.
      if (const auto a = runner->space().find(alone_values)) {
        if (Measurement am = runner->evaluate(*a); am.ok()) alone = std::move(am);
      }
    }
  }
}

/// The operator's time after the job, from measurements only. One kind changed: its
/// measurement. Several: the combined choice is measured once (the kinds interact, so the
/// product of their ratios is no measurement), and so is the best kind's choice alone, on the
/// same runner (the search's time of that kind is the best of many measurements, biased low
/// against one fresh one); when that kind alone is better than the combination, or the device
/// cannot run them together, that kind is kept and the others go back to their defaults.
/// `rep.note` says which. "Better" and "best" are by `objective` (opat_score; the time for plain
/// time); `rep.result_j` gets the settled operator's joules where they are known.
template <class Backend>
[[nodiscard]] double settle_operator(const Backend& backend, const OperatorDesc& op,
                                     std::vector<KindChoice>& choices, OpatOperatorReport& rep,
                                     const Objective& objective = {}) {
  std::vector<std::size_t> changed;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].changed()) changed.push_back(i);
  }
  rep.result_j = rep.default_j;
  if (changed.empty()) return rep.default_us;
  std::size_t best = changed.front();
  for (const std::size_t i : changed) {
    if (choices[i].after_score < choices[best].after_score) best = i;
  }
  double single = choices[best].after_us;
  double single_score = choices[best].after_score;
  rep.result_j = choices[best].after_j;
  if (changed.size() == 1) return single;
  const auto score = [&](const Measurement& m) {
    return objective.plain_time() ? m.value * 1e6 : opat_score(m, objective);
  };
  std::optional<Measurement> combined, alone_m;
  std::string why = "the device cannot measure the kinds together";
  measure_together(backend, op, choices, best, combined, alone_m, why);
  if (alone_m) {
    single = alone_m->value * 1e6;
    single_score = score(*alone_m);
    rep.result_j = joules_of(*alone_m);
  }
  const auto us = [](double v) {
    std::array<char, 32> b{};
    std::snprintf(b.data(), b.size(), "%.3f us", v);
    return std::string(b.data());
  };
  const std::string together = kind_names(choices, changed);
  const std::string alone = std::string(to_string(choices[best].kind));
  const std::string worse = objective.plain_time() ? "slower" : "worse by " + objective.label();
  if (combined && score(*combined) <= single_score) {
    rep.note = together + " measured together: " + us(combined->value * 1e6);
    rep.result_j = joules_of(*combined);
    return combined->value * 1e6;
  }
  for (const std::size_t i : changed) {
    if (i != best) choices[i].use = choices[i].def;
  }
  rep.note = (combined ? together + " measured together: " + us(combined->value * 1e6) + ", " +
                             worse + " than " + alone + " alone"
                       : together + " not measured together (" + why + ")") +
             "; kept " + alone + " only (" + us(single) + ")";
  return single;
}

}  // namespace detail

namespace detail {

/// The knowledge kinds the job tunes, in order: Schedule, then Format and Impl when asked.
[[nodiscard]] inline std::vector<KnowledgeKind> opat_kinds(const OpatOptions& options) {
  std::vector<KnowledgeKind> kinds{KnowledgeKind::schedule};
  if (options.format_tuning) kinds.push_back(KnowledgeKind::format);
  if (options.impl_tuning) kinds.push_back(KnowledgeKind::impl);
  return kinds;
}

/// The knowledge chosen for the operators accounted so far, one ChosenKnowledge per distinct
/// value: an operator whose choice equals an earlier one's (a bank hit of the key tuned before
/// it) shares that one's list instead of holding a copy. At most `capacity` values are held
/// (then it starts again), so that a model whose operators all differ keeps no more than its
/// reports do.
class KnowledgeShare {
 public:
  static constexpr std::size_t capacity = 4096;

  /// `kinds` as a ChosenKnowledge: an earlier one with the same value, or a new one.
  [[nodiscard]] ChosenKnowledge share(std::vector<ChosenKnowledge::value_type> kinds) {
    const std::uint64_t h = hash(kinds);
    for (auto [it, end] = held_.equal_range(h); it != end; ++it) {
      if (it->second.kinds() == kinds) return it->second;
    }
    if (held_.size() >= capacity) held_.clear();
    return held_.emplace(h, ChosenKnowledge(std::move(kinds)))->second;
  }

 private:
  // Only tells lists apart within the process (the standard library's hashes): no output
  // depends on it.
  [[nodiscard]] static std::uint64_t hash(const std::vector<ChosenKnowledge::value_type>& kinds) {
    std::uint64_t h = kinds.size();
    const auto mix = [&h](std::uint64_t x) { h = (h ^ x) * 0x9E3779B97F4A7C15ULL; };
    for (const auto& [kind, values] : kinds) {
      mix(std::hash<std::string_view>{}(kind));
      for (const auto& nv : values) {
        mix(std::hash<std::string_view>{}(nv.name));
        if (nv.value.is_text()) {
          mix(std::hash<std::string_view>{}(nv.value.as_text()));
        } else if (nv.value.is_integer()) {
          mix(static_cast<std::uint64_t>(nv.value.as_integer()));
        } else {
          mix(std::hash<double>{}(nv.value.as_real()));
        }
      }
    }
    return h;
  }

  std::unordered_multimap<std::uint64_t, ChosenKnowledge> held_;
};

/// What the job has learned, as the tasks of the next wave see it (job_skeleton.hpp).
struct OpatJobState {
  std::vector<KnowledgeKind> kinds;
  TransferHints hints;
  /// Every trial of the operators accounted so far, in task order, for a learned cost model.
  std::shared_ptr<TransferData> learned = std::make_shared<TransferData>();
  /// A key tuned earlier in this job that was not written (unsatisfied): reuse the outcome.
  std::map<TuningKey, KindPerformance> unsatisfied_in_job;
  std::set<TuningKey> tuned_keys;  ///< REPEAT_TUNE re-tunes each bank entry once per job
  KnowledgeShare knowledge;        ///< the operators' chosen knowledge, shared by value
  /// Where the backend's times come from (its `timing()`; none for a backend without one):
  /// written into every bank entry the job stores; a device that measures takes the bank's
  /// records that are not measured as hints (StoredLookup::hint).
  std::optional<Timing> timing;
};

/// The provenance of `backend`'s times: its `timing()`, none when it has no such member.
template <class Backend>
[[nodiscard]] std::optional<Timing> backend_timing(const Backend& backend) {
  if constexpr (requires {
                  { backend.timing() } -> std::convertible_to<Timing>;
                }) {
    return backend.timing();
  } else {
    return std::nullopt;
  }
}

/// Whether a stored record is only a hint on a device whose times are `device`'s: the device
/// measures and the record does not say it was measured (simulated, or a bank written before
/// entries said so). On the simulator every record is used as it is.
[[nodiscard]] inline bool stored_is_hint(const Record& r, const std::optional<Timing>& device) {
  return device && device->measured() && !(r.provenance.timing && r.provenance.timing->measured());
}

/// A configuration with its measurement: the default, or the bank's stored one.
struct Measured {
  Configuration configuration;
  Measurement measurement;
};

/// The bank's configuration for `key` when `space` holds it and it is valid; none otherwise,
/// and a record whose configuration is not in the space is `stale` (tuned as if new, then
/// replaced: StoredLookup); `hint` as stored_is_hint says for a device of `device` timing. An
/// unreadable bank is an error.
[[nodiscard]] inline Result<StoredLookup<Configuration>> opat_stored_configuration(
    const KnowledgeBank& bank, const TuningKey& key, const Space& space,
    const std::optional<Timing>& device = std::nullopt) {
  auto found = bank.lookup(key);
  if (!found) return found.error();  // a bank that became unreadable: stop the job
  if (!found->has_value()) return StoredLookup<Configuration>{};
  auto out = stored_in_space(space, (*found)->configuration);
  out.hint = out.found && stored_is_hint(**found, device);
  return out;
}

/// A step that tunes nothing: it measures `configurations` of operator `op_index`'s `kind`, in
/// order, and hands them back as its history.
[[nodiscard]] inline OpatStepRequest opat_measure_request(
    std::uint64_t op_index, KnowledgeKind kind, std::int32_t parallel,
    std::vector<Configuration> configurations) {
  OpatStepRequest q;
  q.op = op_index;
  q.kind = kind;
  q.batch_size = 0;
  q.parallel = parallel;
  q.measure_only = std::move(configurations);
  return q;
}

/// The bank's configuration for `key`, measured, when the space holds it and it runs (a stale
/// entry is as none: tuned as if new; so is a hint on a `device` that measures, never a hit).
template <class Runner>
[[nodiscard]] Result<std::optional<Measured>> opat_stored(
    const KnowledgeBank& bank, const TuningKey& key, const Runner& runner,
    std::span<const Measured> known = {}, const std::optional<Timing>& device = std::nullopt) {
  auto lookup = opat_stored_configuration(bank, key, runner.space(), device);
  if (!lookup) return lookup.error();
  const auto& cfg = lookup->found;
  if (!cfg || lookup->hint) return std::optional<Measured>();
  for (const auto& k : known) {  // measured already: the same answer (see `premeasured`)
    if (k.configuration != *cfg) continue;
    if (!k.measurement.ok()) return std::optional<Measured>();
    return std::optional<Measured>(Measured{*cfg, k.measurement});
  }
  Measurement m = runner.evaluate(*cfg);
  if (!m.ok()) return std::optional<Measured>();
  return std::optional<Measured>(Measured{*cfg, std::move(m)});
}

template <class Backend>
using opat_runner_t = std::remove_cvref_t<decltype(*std::declval<Backend&>().create(
    std::declval<const OperatorDesc&>(), KnowledgeKind::schedule))>;

/// One knowledge kind of an operator as planned (rank 0, in task order; see run_opat): its
/// request `ticket` in the job's StepQueue, then what the reply said. `tune`: the step tunes,
/// or it is a bank `hit` when the stored configuration runs and `hit_if_stored`. `later`: one
/// of the tasks planned and not accounted may tune the same key, or the job found the key
/// unsatisfied; decided when accounting, from the bank as the earlier task left it.
template <class Runner>
struct OpatKindPlan {
  enum class Action : std::uint8_t { hit, later, tune };
  KnowledgeKind kind = KnowledgeKind::schedule;
  TuningKey key;
  Runner runner;
  Measured def;                                         ///< measurement: from the reply
  std::optional<Configuration> stored_configuration{};  ///< the bank's, when planned
  std::optional<Measured> stored{};                     ///< ... when it runs (from the reply)
  bool stale = false;  ///< the bank's record no longer fits the space: replaced when stored
  bool hint = false;   ///< the bank's record is a hint (StoredLookup::hint): replaced when stored
  Action action = Action::tune;
  bool hit_if_stored = false;
  std::size_t ticket = 0;
  std::optional<Result<StepOutcome>> reply{};
  /// later: the configurations measured for it (its default, the bank's when planned, the
  /// bank's when accounted), so that the accounting measures nothing itself.
  std::vector<Measured> premeasured{};
  /// later: the bank's configuration as the earlier task of its key left it, and the ticket of
  /// its measurement, submitted when that task was accounted (opat_measure_ahead).
  std::optional<std::pair<Configuration, std::size_t>> ahead{};
};

/// One fused operator as planned: its report so far (name, default time, or why it failed).
template <class Runner>
struct OpatOperatorPlan {
  std::uint64_t op = 0;  ///< its index in fuse(graph)
  OpatOperatorReport rep;
  std::vector<OpatKindPlan<Runner>> kinds;
  std::size_t tuning = 0;  ///< its kinds that search (not a likely bank hit)
};

/// Where the pipeline stands (job_skeleton.hpp): the keys planned tasks may tune, by the last
/// task that may; how many tasks are accounted; how many searching steps are planned and not
/// accounted. A task meeting a key that a task planned and not accounted may tune defers that
/// kind (`later`).
struct OpatPipeline {
  std::map<TuningKey, std::size_t> keys;
  std::size_t accounted = 0;
  std::size_t tuning = 0;
  void accounted_one(std::size_t its_tuning) {
    ++accounted;
    tuning -= its_tuning;
  }
};

/// The bank key of `op`'s `kind` in the job: make_bank_key's, with the objective's suffix
/// (Objective::key_suffix: none for plain time), as aoe::Tuner keys a repository.
[[nodiscard]] inline TuningKey opat_bank_key(const OperatorDesc& op, KnowledgeKind kind,
                                             const OpatOptions& options) {
  TuningKey key = make_bank_key(op, kind, options.scope, options.impl_mode);
  key.problem += options.objective.key_suffix();
  return key;
}

/// The request of one kind's step: it measures the default and the stored configuration, then
/// (unless a hit) searches from them and the winners of similar operators; a learned model sees
/// the trials of the tasks accounted before the plan (job_skeleton.hpp) and the bank.
template <class Runner>
[[nodiscard]] OpatStepRequest opat_request(const OperatorDesc& op, std::uint64_t op_index,
                                           const OpatKindPlan<Runner>& k,
                                           const OpatOptions& options, const OpatJobState& job) {
  const Space& space = k.runner.space();
  OpatStepRequest q;
  q.op = op_index;
  q.kind = k.kind;
  q.parallel = options.parallel;
  q.def = k.def.configuration;
  q.stored = k.stored_configuration;
  q.tune = k.action == OpatKindPlan<Runner>::Action::tune;
  if (!q.tune) return q;  // later: the measurements only
  q.search = options.search;
  q.objective = options.objective;
  q.budget = options.budget;
  q.batch_size = options.batch_size;
  q.seed = derive_seed(options.seed, fnv1a(k.key.problem));
  q.seed_stored = derive_seed(options.seed, fnv1a(k.key.problem) + 1);
  q.hit_if_stored = k.hit_if_stored;
  q.context = operator_features(op, k.kind, options.scope);
  if (uses_transfer_rows(options.search)) q.prior = job.hints.prior(job.learned, k.kind, space);
  const std::string op_text = operator_key_text(op, options.impl_mode);
  for (const auto& values : job.hints.nearest(k.kind, op_text, options.transfer_hints)) {
    if (auto c = project_onto(space, values, k.def.configuration)) q.initial.push_back(*c);
  }
  return q;
}

/// Plans one fused operator, task `task` of the job (rank 0, in task order, see
/// job_skeleton.hpp): per kind its runner, the bank looked up, what it does (`tune` or
/// `later`), and its request submitted to `queue`. An operator
/// whose runner cannot be created is planned failed (`rep.error`), with no request.
template <class Backend>
[[nodiscard]] Result<OpatOperatorPlan<opat_runner_t<Backend>>> opat_plan_operator(
    Backend& backend, const OperatorDesc& op, std::uint64_t op_index, std::size_t task,
    const KnowledgeBank& bank, const OpatOptions& options, OpatJobState& job, OpatPipeline& pipe,
    StepQueue<OpatStepRequest, StepOutcome>& queue) {
  using Plan = OpatKindPlan<opat_runner_t<Backend>>;
  OpatOperatorPlan<opat_runner_t<Backend>> plan;
  plan.op = op_index;
  plan.rep.op_name = op.name;
  plan.rep.op_type = op.type;
  std::vector<opat_runner_t<Backend>> runners;
  for (const KnowledgeKind kind : job.kinds) {
    auto runner = backend.create(op, kind);
    if (!runner) {
      plan.rep.error = runner.error().message;
      return plan;
    }
    runners.push_back(std::move(*runner));
  }
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const Space& space = runners[i].space();
    if (space.dimensions() == 0) continue;  // nothing of this kind to tune
    Configuration def = runners[i].default_configuration();
    Plan k{job.kinds[i], opat_bank_key(op, job.kinds[i], options), std::move(runners[i]),
           Measured{std::move(def), {}}};
    auto stored = opat_stored_configuration(bank, k.key, k.runner.space(), job.timing);
    if (!stored) return stored.error();
    k.stored_configuration = std::move(stored->found);
    k.stale = stored->stale;
    k.hint = stored->hint;
    const bool tuned_in_job = !job.tuned_keys.insert(k.key).second;
    const auto it = pipe.keys.find(k.key);
    if ((it != pipe.keys.end() && it->second >= pipe.accounted) ||
        (!k.stored_configuration && job.unsatisfied_in_job.contains(k.key))) {
      k.action = Plan::Action::later;
    } else {
      k.hit_if_stored = (!options.repeat_tune || tuned_in_job) && !k.hint;
      pipe.keys[k.key] = task;
    }
    const double measures = k.stored_configuration ? 2 : 1;
    const bool hit = k.stored_configuration && k.hit_if_stored;
    // What the step measures: a search takes its budget (or the whole space when smaller), so
    // that equal searches tie and go out in task order, the order they are accounted in.
    const double cost =
        k.action == Plan::Action::later || hit
            ? measures
            : measures + static_cast<double>(std::min<std::uint64_t>(k.runner.space().raw_size(),
                                                                     options.budget.evaluations));
    if (k.action == Plan::Action::tune && !hit) ++plan.tuning;
    k.ticket = queue.submit(opat_request(op, op_index, k, options, job), cost);
    plan.kinds.push_back(std::move(k));
  }
  return plan;
}

/// Reads the replies of an operator's kinds (waiting for each): the default's and the stored
/// configuration's measurements, and whether a kind is a bank hit. A failed step or a default
/// that fails on the device fails the operator (`rep.error`, no kinds left).
template <class Runner>
void opat_read_replies(OpatOperatorPlan<Runner>& plan,
                       StepQueue<OpatStepRequest, StepOutcome>& queue) {
  using Action = typename OpatKindPlan<Runner>::Action;
  for (auto& k : plan.kinds) k.reply = queue.wait(k.ticket);
  for (auto& k : plan.kinds) {
    const auto& r = *k.reply;
    if (!r) {
      plan.rep.error = "its tuning step failed: " + r.error().message;
      break;
    }
    const auto& m = r->measured_first;
    if (m.empty() || (k.stored_configuration && m.front().ok() && m.size() != 2)) {
      plan.rep.error = "its planning measurements failed: wrong number of measurements";
      break;
    }
    if (!m.front().ok()) {
      plan.rep.error = "the default policy fails on the device: " + m.front().message;
      break;
    }
    if (&k == &plan.kinds.front()) {
      plan.rep.default_us = m.front().value * 1e6;
      plan.rep.default_j = joules_of(m.front());
    }
    k.def.measurement = m.front();
    if (k.stored_configuration && m[1].ok()) k.stored = Measured{*k.stored_configuration, m[1]};
    if (k.action == Action::later) {
      k.premeasured.push_back(k.def);
      if (k.stored) k.premeasured.push_back(*k.stored);
    } else if (k.stored && k.hit_if_stored) {
      k.action = Action::hit;
    }
  }
  if (!plan.rep.error.empty()) plan.kinds.clear();  // a failed operator is not tuned at all
}

/// A `later` kind finds in the bank what the earlier task of its key wrote: measured now over
/// `queue` unless it was measured already (a measurement that fails here is taken again when
/// the kind is accounted).
template <class Runner>
void opat_measure_bank_now(OpatKindPlan<Runner>& k, std::uint64_t op_index,
                           const KnowledgeBank& bank, const OpatOptions& options,
                           StepQueue<OpatStepRequest, StepOutcome>& queue) {
  if (k.action != OpatKindPlan<Runner>::Action::later) return;
  if (k.ahead) {  // measured ahead: taken whether the bank still holds it or not
    auto got = queue.wait(k.ahead->second);
    if (got && got->history.size() == 1)
      k.premeasured.push_back({std::move(k.ahead->first), got->history.front().measurement});
    k.ahead.reset();
  }
  auto cfg = opat_stored_configuration(bank, k.key, k.runner.space());
  if (!cfg || !cfg->found) return;  // an unreadable bank: reported when the kind is accounted
  for (const auto& m : k.premeasured) {
    if (m.configuration == *cfg->found) return;
  }
  auto got = queue.wait(
      queue.submit(opat_measure_request(op_index, k.kind, options.parallel, {*cfg->found}), 1));
  if (got && got->history.size() == 1)
    k.premeasured.push_back({*cfg->found, got->history.front().measurement});
}

/// After a task is accounted, `written` the keys its steps may have stored: the `later` kinds
/// of the planned tasks with such a key get the bank's configuration measured now over
/// `queue`, all at once, instead of one after the other as each is accounted in task order
/// (opat_measure_bank_now). What is measured is fixed by the task order and the plans, and a
/// configuration measures the same wherever and whenever: the outputs do not change.
template <class Runner>
[[nodiscard]] Result<void> opat_measure_ahead(std::deque<OpatOperatorPlan<Runner>>& planned,
                                              const std::set<TuningKey>& written,
                                              const KnowledgeBank& bank, const OpatOptions& options,
                                              StepQueue<OpatStepRequest, StepOutcome>& queue) {
  if (written.empty()) return {};
  for (auto& plan : planned) {
    for (auto& k : plan.kinds) {
      if (k.action != OpatKindPlan<Runner>::Action::later || k.ahead || !written.contains(k.key))
        continue;
      auto cfg = opat_stored_configuration(bank, k.key, k.runner.space());
      if (!cfg) return cfg.error();
      if (!cfg->found || *cfg->found == k.def.configuration ||
          *cfg->found == k.stored_configuration)
        continue;  // nothing stored, or its own step measures it
      const std::size_t ticket =
          queue.submit(opat_measure_request(plan.op, k.kind, options.parallel, {*cfg->found}), 1);
      k.ahead.emplace(std::move(*cfg->found), ticket);
    }
  }
  return {};
}

/// A kind of an operator after its step, before the bank is written: its performance so far,
/// the configuration it started from (`from`) and the step's best when it beat `from`.
struct OpatKindResult {
  KindPerformance perf;
  Configuration from;
  std::optional<Configuration> better;
  double better_value = 0;           ///< its score under the job's objective (its seconds for time)
  Measurement better_measurement{};  ///< an objective other than plain time: its measurement
  double from_score = 0;             ///< `from`'s score under the job's objective
  bool tuned = false;
  std::vector<FrontMember> front{};  ///< pareto: the step's front, stored with the pick
};

/// The measurement of `cfg` in a step's history (the first valid one).
[[nodiscard]] inline Measurement measurement_in(const std::vector<Trial>& history,
                                                const Configuration& cfg) {
  for (const auto& t : history) {
    if (t.measurement.ok() && t.configuration == cfg) return t.measurement;
  }
  return {};
}

/// What a kind's plan and step say, read in task order: a hit, the outcome of the same key
/// earlier in the job, or the step's trials (added to what later waves learn).
template <class Runner>
[[nodiscard]] Result<OpatKindResult> opat_kind_result(
    const OpatKindPlan<Runner>& k, const OperatorDesc& op, const StepOutcome* step,
    const KnowledgeBank& bank, const OpatOptions& options, OpatJobState& job) {
  using Action = typename OpatKindPlan<Runner>::Action;
  const double def_us = k.def.measurement.value * 1e6;
  OpatKindResult out;
  out.perf = {k.kind, def_us, def_us, OpatOutcome::unsatisfied, {}};
  if (!options.objective.plain_time())
    out.perf.before_j = out.perf.after_j = joules_of(k.def.measurement);
  out.from = k.def.configuration;
  out.from_score = opat_score(k.def.measurement, options.objective);
  std::optional<Measured> stored = k.stored;
  if (k.action == Action::later) {
    // The bank as the earlier task left it
    auto now =
        opat_stored(bank, k.key, k.runner, std::span<const Measured>(k.premeasured), job.timing);
    if (!now) return now.error();
    stored = std::move(*now);
    if (!stored) {
      if (const auto it = job.unsatisfied_in_job.find(k.key); it != job.unsatisfied_in_job.end())
        out.perf = it->second;  // same computation as an operator before it: same outcome
      return out;
    }
  }
  if (k.action != Action::tune) {
    out.perf = {k.kind, def_us, stored->measurement.value * 1e6, OpatOutcome::hit};
    if (!options.objective.plain_time()) {
      out.perf.before_j = joules_of(k.def.measurement);
      out.perf.after_j = joules_of(stored->measurement);
    }
    out.from = stored->configuration;
    out.from_score = opat_score(stored->measurement, options.objective);
    return out;
  }
  out.tuned = true;
  out.perf.best_so_far_us = best_so_far_us(step->history);
  if (uses_transfer_rows(options.search)) {
    // Copy on write: a request planned before keeps the trials it was planned with (`prior` may
    // share them), however late its step runs.
    if (job.learned.use_count() > 1) job.learned = std::make_shared<TransferData>(*job.learned);
    append_trials(*job.learned, operator_features(op, k.kind, options.scope), k.runner.space(),
                  step->history);
  }
  const Measured& from = stored ? *stored : k.def;
  out.perf.before_us = out.perf.after_us = from.measurement.value * 1e6;
  out.from = from.configuration;
  const Objective& o = options.objective;
  out.from_score = opat_score(from.measurement, o);
  if (!o.plain_time()) {
    out.perf.before_j = out.perf.after_j = joules_of(from.measurement);
    opat_trials_front(step->history, o, out.perf, k.runner.space(), out.front);
  }
  // Pareto: the rule's pick among everything measured (`from` included) is in use, whatever
  // its score against `from`'s; the other objectives: a better score.
  const bool better = o.kind == ObjectiveKind::pareto
                          ? step->found() && *step->best_configuration != from.configuration
                          : step->found() && step->best_value < out.from_score;
  if (better) {
    out.better = step->best_configuration;
    out.better_value = step->best_value;
    if (!o.plain_time()) out.better_measurement = measurement_in(step->history, *out.better);
  }
  return out;
}

/// The bank write of a tuned kind, after the operator is settled: the step's best only when the
/// settled operator uses it (`used`), else the default when nothing better is in use and the
/// bank holds nothing (record_unsatisfied). Then the hints of later waves.
template <class Runner>
[[nodiscard]] Result<void> opat_store_kind(const OpatKindPlan<Runner>& k, OpatKindResult& r,
                                           bool used, std::size_t evaluations,
                                           const std::string& policy, const OperatorDesc& op,
                                           KnowledgeBank& bank, const OpatOptions& options,
                                           OpatJobState& job) {
  const Space& space = k.runner.space();
  // A pareto pick is stored with the front it was picked from (the default too, when the
  // search found nothing better); a default stored while a better pick is not in use, and a
  // kept hint, are not.
  const auto record = [&](const Configuration& c, double value, std::string how,
                          bool with_front = true) {
    Record rec{k.key, space.named_values(c), value,
               Provenance{std::move(how), evaluations, utc_timestamp(), job.timing}};
    if (with_front) rec.front = r.front;
    return bank.store(rec, k.stale || k.hint);
  };
  const double default_score = opat_score(k.def.measurement, options.objective);
  auto acc = account(
      k.stored.has_value(), false, r.better.has_value() && used,
      options.run.record_unsatisfied && std::isfinite(default_score),
      [&] { return record(*r.better, r.better_value, policy); },
      [&] { return record(k.def.configuration, default_score, "default", !r.better); });
  if (!acc) return acc.error();
  r.perf.outcome = acc->outcome;
  if (k.hint && k.stored && !acc->use_found) {
    // The hint kept: its configuration stays, with the time measured now in place of the one
    // it was stored with ("remeasured").
    auto kept = record(k.stored->configuration,
                       opat_score(k.stored->measurement, options.objective), "remeasured", false);
    if (!kept) return kept.error();
  }
  if (acc->use_found) {
    if (options.objective.plain_time()) {
      r.perf.after_us = r.better_value * 1e6;
    } else {
      r.perf.after_us = r.better_measurement.value * 1e6;
      r.perf.after_j = joules_of(r.better_measurement);
    }
    job.hints.add(k.kind, operator_key_text(op, options.impl_mode), space.named_values(*r.better),
                  true);
  } else if (!k.stored && !options.run.record_unsatisfied) {
    job.unsatisfied_in_job.emplace(k.key, r.perf);
  }
  return {};
}

/// One fused operator, every knowledge kind of it, settled.
struct OpatTask {
  OpatOperatorReport report;
  TunedOperator chosen;
  bool interrupted = false;
};

/// Accounts one planned operator (rank 0, in task order), operator `op_index` of fuse(graph):
/// its replies read (waiting for them), its kinds' results, the operator settled from
/// measurements (settle_operator), then the bank written with what the settled operator uses,
/// so that the bank and the tuned model agree.
template <class Backend, class Runner>
[[nodiscard]] Result<OpatTask> opat_account_operator(
    const Backend& backend, const FusedOperator& f, std::uint64_t op_index,
    OpatOperatorPlan<Runner>& plan, KnowledgeBank& bank, const OpatOptions& options,
    OpatJobState& job, StepQueue<OpatStepRequest, StepOutcome>& queue) {
  using Action = typename OpatKindPlan<Runner>::Action;
  opat_read_replies(plan, queue);
  OpatTask task{std::move(plan.rep), {f.nodes, f.op.name, f.op.type, {}, 0, 0}, false};
  OpatOperatorReport& rep = task.report;
  std::vector<OpatKindResult> results;
  for (auto& k : plan.kinds) {
    const StepOutcome* step = nullptr;
    if (k.action == Action::tune) {
      step = &**k.reply;
      rep.evaluations += step->history.size();
      if (step->interrupted) task.interrupted = true;
    }
    opat_measure_bank_now(k, op_index, bank, options, queue);
    auto r = opat_kind_result(k, f.op, step, bank, options, job);
    if (!r) return r.error();
    results.push_back(std::move(*r));
  }
  rep.result_us = rep.default_us;
  if (task.interrupted || (rep.error.empty() && results.empty())) return task;
  std::vector<KindChoice> choices;
  for (std::size_t i = 0; i < results.size() && rep.error.empty(); ++i) {
    const Space& space = plan.kinds[i].runner.space();
    const auto& r = results[i];
    KindChoice c{r.perf.kind, space.named_values(r.better ? *r.better : r.from),
                 space.named_values(plan.kinds[i].def.configuration),
                 r.better ? r.better_value * 1e6 : r.perf.after_us};
    c.after_score = c.after_us;
    if (!options.objective.plain_time()) {
      c.after_us = r.better ? r.better_measurement.value * 1e6 : r.perf.after_us;
      c.after_score = r.better ? r.better_value : r.from_score;
      c.after_j = r.better ? joules_of(r.better_measurement) : r.perf.after_j;
    }
    choices.push_back(std::move(c));
  }
  if (rep.error.empty())
    rep.result_us = settle_operator(backend, f.op, choices, rep, options.objective);
  for (std::size_t i = 0; i < results.size() && rep.error.empty(); ++i) {
    auto& r = results[i];
    if (r.tuned) {
      const auto& k = plan.kinds[i];
      const auto& step = **k.reply;
      const bool used = r.better && choices[i].use == k.runner.space().named_values(*r.better);
      if (auto ok = opat_store_kind(k, r, used, step.history.size(), step.policy, f.op, bank,
                                    options, job);
          !ok) {
        return ok.error();
      }
    }
    rep.kinds.push_back(std::move(r.perf));
  }
  std::vector<ChosenKnowledge::value_type> knowledge;
  knowledge.reserve(choices.size());
  for (auto& c : choices) knowledge.emplace_back(std::string(to_string(c.kind)), std::move(c.use));
  task.chosen.knowledge = job.knowledge.share(std::move(knowledge));
  rep.knowledge = task.chosen.knowledge;
  task.chosen.default_us = rep.default_us;
  task.chosen.result_us = rep.result_us;
  return task;
}

/// What OPAT carries over the job: the kinds tuned and the bank's hints.
[[nodiscard]] inline Result<OpatJobState> opat_job_state(const KnowledgeBank& bank,
                                                         const OpatOptions& options) {
  OpatJobState job;
  job.kinds = opat_kinds(options);
  if (options.transfer_hints > 0) {
    auto read = TransferHints::from_bank(bank, options.scope, job.kinds);
    if (!read) return read.error();
    job.hints = std::move(*read);
  }
  return job;
}

/// The operators the job tunes: indices into `fused`, in graph order.
[[nodiscard]] inline std::vector<std::size_t> opat_tasks(const std::vector<FusedOperator>& fused,
                                                         const OpatOptions& options) {
  std::vector<std::size_t> tasks;
  for (std::size_t i = 0; i < fused.size(); ++i) {
    if (selected(fused[i].op, options.tune_ops_names, options.tune_ops_types)) tasks.push_back(i);
  }
  return tasks;
}

}  // namespace detail

/// One OPAT tuning step, as any rank runs it: `request` on `op` (the operator `request.op` of
/// fuse(graph)) with a runner of `backend`, created afresh so that the step is the same
/// wherever it runs: the default and the stored configuration measured (`measured_first`),
/// then the search unless the request says otherwise. Throws aoe::Error when the runner cannot
/// be created (the plan created it on rank 0) or the search name is unknown.
template <class Backend>
[[nodiscard]] StepOutcome opat_step(Backend& backend, const OperatorDesc& op,
                                    const OpatStepRequest& request, const std::atomic<bool>* stop) {
  auto runner = backend.create(op, request.kind);
  if (!runner) throw Error(Errc::device_error, runner.error().message);
  StepOutcome out;
  if (!request.measure_only.empty()) {
    for (const auto& c : request.measure_only)
      out.history.push_back({c, runner->evaluate(c), out.history.size() + 1});
    return out;
  }
  out.measured_first.push_back(runner->evaluate(request.def));
  if (!out.measured_first.front().ok()) return out;
  if (request.stored) out.measured_first.push_back(runner->evaluate(*request.stored));
  const bool stored_runs = request.stored && out.measured_first.back().ok();
  if (!request.tune || (stored_runs && request.hit_if_stored)) return out;
  std::vector<std::pair<Configuration, Measurement>> known{
      {request.def, out.measured_first.front()}};
  SearchStart start{{}, request.context, request.prior, std::nullopt};
  if (stored_runs) {
    start.initial.push_back(*request.stored);
    known.emplace_back(*request.stored, out.measured_first.back());
  }
  start.initial.push_back(request.def);
  start.initial.insert(start.initial.end(), request.initial.begin(), request.initial.end());
  if constexpr (requires { backend.soc(); }) {
    // "analytic" ranks candidates with the analytic cost model of this operator on the
    // backend's SoC (built from the public SoC and operator description, not the simulator).
    if (request.search == "analytic") {
      if (auto m = AnalyticCostModel::create(backend.soc(), op, runner->space())) {
        start.analytic = std::move(*m);
      }
    }
  }
  using Runner = std::remove_cvref_t<decltype(*runner)>;
  StepOutcome tuned = StepOutcome::of(tune_step(
      runner->space(), step_search(make_opat_search(request.search, start), request.search),
      detail::KnownMeasure<ParallelMeasure<Runner>>(
          ParallelMeasure<Runner>(*runner, request.parallel), std::move(known)),
      stored_runs ? request.seed_stored : request.seed,
      StepLimits{request.budget, request.batch_size, stop}, request.objective));
  tuned.measured_first = std::move(out.measured_first);
  return tuned;
}

namespace detail {

/// OPAT's schedule (job_driver.hpp): the selected operators of the fused graph, in graph order,
/// tuned in a pipeline (job_skeleton.hpp): tasks are planned, and their steps queued, while
/// fewer than job_pipeline_depth searching steps are planned and not accounted; accounted in
/// order.
template <class Backend>
class OpatSchedule {
 public:
  using Output = OpatJobResult;
  using Runner = opat_runner_t<Backend>;
  static constexpr std::string_view job = "opat";
  static constexpr bool late_stop_interrupts = true;

  OpatSchedule(const Graph& graph, Backend& backend, KnowledgeBank& bank,
               const OpatOptions& options)
      : graph_(graph), backend_(backend), bank_(bank), options_(options) {}

  [[nodiscard]] const std::string& name() const { return graph_.name; }

  [[nodiscard]] Result<void> check() {
    if (auto ok = bank_.check_writable(options_.scope, opat_kinds(options_)); !ok) return ok;
    if (auto s = make_opat_search(options_.search); !s) return s.error();
    return {};
  }

  [[nodiscard]] Result<std::size_t> prepare(Output& out) {
    out.tuned_model_file = options_.tuned_model.value_or(
        default_tuned_model_path(options_.run.result_dir, graph_.name, out.report.timestamp));
    auto state = opat_job_state(bank_, options_);
    if (!state) return state.error();
    state->timing = backend_timing(backend_);
    out.report.timing = state->timing;
    out.report.objective = options_.objective;
    job_ = std::move(*state);
    fused_ = fuse(graph_);
    tasks_ = opat_tasks(fused_, options_);
    // At most one of each per task: reserved, so that they are never copied to grow (pages not
    // written are not touched).
    out.report.operators.reserve(tasks_.size());
    tuned_.reserve(tasks_.size());
    return tasks_.size();
  }

  [[nodiscard]] bool stop_point(std::size_t /*task*/) const { return true; }

  [[nodiscard]] Result<TaskDone> run_task(std::size_t t, Output& out) {
    if (!queue_) queue_ = make_step_queue(options_.run.executor, local_);
    if (auto ok = plan_ahead(); !ok) return ok.error();
    auto task = opat_account_operator(backend_, fused_[tasks_[t]], tasks_[t], planned_.front(),
                                      bank_, options_, *job_, *queue_);
    std::set<TuningKey> written;
    for (const auto& k : planned_.front().kinds) {
      if (k.action == OpatKindPlan<Runner>::Action::tune) written.insert(k.key);
    }
    pipe_.accounted_one(planned_.front().tuning);
    planned_.pop_front();
    if (!task) return task.error();
    if (auto ok = opat_measure_ahead(planned_, written, bank_, options_, *queue_); !ok)
      return ok.error();
    OpatOperatorReport& rep = task->report;
    const bool interrupted = task->interrupted;
    // An operator with nothing tunable is not reported.
    reported_ = !rep.error.empty() || !rep.kinds.empty() || interrupted;
    if (!reported_) return TaskDone{};
    // Rewritten after every operator that was tuned or failed; bank hits (microseconds each)
    // are folded into the next write, and the job's end writes the file in any case.
    const bool rewrite = rep.evaluations > 0 || !rep.error.empty() || interrupted;
    if (!interrupted) {
      if (rep.error.empty()) tuned_.push_back(std::move(task->chosen));
      out.report.operators.push_back(std::move(rep));
    }
    return TaskDone{rewrite, interrupted};
  }

  void finished(std::size_t t, const Output& out) {
    if (reported_) event(OpatEvent::Kind::finished, t, &out.report.operators.back());
  }

  [[nodiscard]] Result<void> write_model(const Output& out) {
    return write_tuned_model(graph_, tuned_, out.tuned_model_file);
  }

 private:
  void event(OpatEvent::Kind kind, std::size_t t, const OpatOperatorReport* op) const {
    if (options_.run.on_event) {
      const auto& o = fused_[tasks_[t]].op;
      options_.run.on_event(OpatEvent{{kind, t, tasks_.size(), op, o.name}, o.type});
    }
  }

  /// Plans, and queues the steps of, the tasks after the last planned one while fewer than
  /// job_pipeline_depth searching steps are planned and not accounted.
  [[nodiscard]] Result<void> plan_ahead() {
    for (; next_ < tasks_.size() && pipe_.tuning < job_pipeline_depth; ++next_) {
      event(OpatEvent::Kind::started, next_, nullptr);
      auto p = opat_plan_operator(backend_, fused_[tasks_[next_]].op, tasks_[next_], next_, bank_,
                                  options_, *job_, pipe_, *queue_);
      if (!p) return p.error();
      pipe_.tuning += p->tuning;
      planned_.push_back(std::move(*p));
    }
    return {};
  }

  const Graph& graph_;
  Backend& backend_;
  KnowledgeBank& bank_;
  const OpatOptions& options_;
  std::optional<OpatJobState> job_;
  std::vector<FusedOperator> fused_;
  std::vector<std::size_t> tasks_;
  std::vector<TunedOperator> tuned_;
  const StepFunction<OpatStepRequest, StepOutcome> local_ = [this](const OpatStepRequest& q) {
    return opat_step(backend_, fused_[q.op].op, q, options_.run.stop);
  };
  std::unique_ptr<StepQueue<OpatStepRequest, StepOutcome>> queue_;
  std::deque<OpatOperatorPlan<Runner>> planned_;
  OpatPipeline pipe_;
  std::size_t next_ = 0;   ///< the next task to plan
  bool reported_ = false;  ///< the task just accounted has an entry in the report
};

}  // namespace detail

/// Runs OPAT on `graph`. `backend.create(const OperatorDesc&, KnowledgeKind)` returns a
/// `Result<R>` for a runner R with `space()`, `default_configuration()` and a thread-safe
/// `evaluate(const Configuration&) const -> Measurement` (aoe::Runner<device::Simulator> through
/// jobs/simulator_backend.hpp). The operators are tuned in a pipeline (job_skeleton.hpp), their
/// steps run by `options.run.executor` (here, or over MPI ranks), by the job driver
/// (job_driver.hpp). Errors are those of the environment (bank, result file); an operator that
/// cannot be tuned is reported in `tuning_failed_operators` and the job goes on. When
/// `options.run.stop` is set during the job, the job ends after the current batch with the
/// report marked "tune tuning incomplete" and returns Errc::interrupted with the result in
/// `partial`. The result file is written durably at the end (JobFrame::finish); the tuned model
/// is renamed into place (atomic, not fsynced).
template <class Backend>
[[nodiscard]] Result<OpatJobResult> run_opat(const Graph& graph, Backend& backend,
                                             KnowledgeBank& bank, const OpatOptions& options,
                                             OpatJobResult* partial = nullptr) {
  detail::OpatSchedule<Backend> schedule(graph, backend, bank, options);
  return run_job(schedule, options.run.result_dir, options.run.stop, partial);
}

}  // namespace aoe

#endif  // AOE_JOBS_OPAT_JOB_HPP
