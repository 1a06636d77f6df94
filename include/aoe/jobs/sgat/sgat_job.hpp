// The SGAT job (subgraph tuning, AOE job_type 1 / AOE_MODE 1; docs/sgat.md): split the model
// into subgraphs -> per subgraph, graph-bank lookup by its structure key -> tune its strategy
// (slices, L2 residency, fusion scopes, UB-fusion passes, formats) on aoe::Tuner with the
// simulator scoring the whole subgraph -> account it as hit / add / update / reserved /
// unsatisfied / failed -> result file rewritten after every subgraph -> tuned model.
#ifndef AOE_JOBS_SGAT_SGAT_JOB_HPP
#define AOE_JOBS_SGAT_SGAT_JOB_HPP

// What every job uses comes with the skeleton (job_skeleton.hpp), and the pieces of this
// job's folder bring what they use; SGAT adds:
#include "aoe/jobs/detail/transfer.hpp"
#include "aoe/jobs/job_driver.hpp"
#include "aoe/jobs/job_run.hpp"
#include "aoe/jobs/job_skeleton.hpp"
#include "aoe/jobs/parallel_measure.hpp"
#include "aoe/jobs/sgat/graph_bank.hpp"
#include "aoe/jobs/sgat/sgat_checkpoint.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/jobs/sgat/subgraph_scorer.hpp"
#include "aoe/jobs/simulator_backend.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"
#include "aoe/search/by_name.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <set>
#include <tuple>

namespace aoe {

/// Strategies evaluated per subgraph, and evaluations without improvement after which a
/// subgraph's tuning stops: AOE's --tune_optimization_level presets for SGAT, O2 (normal, the
/// default) and O1 (high performance, four times the budget).
inline constexpr JobBudgetPresets sgat_budget_preset{.o2 = {.evaluations = 240, .patience = 96},
                                                     .o1 = {.evaluations = 960, .patience = 384}};

/// What happened, for a progress display: a subgraph started or finished.
using SgatEvent = JobTaskEvent<SgatSubgraphReport>;

/// The tuning step of one subgraph, as any rank can run it (`sgat_step`): the subgraph by its
/// index in `sgat_tasks` (which the split and space options decide), and everything else the
/// step reads. Serialised between ranks by include/aoe/mpi/job_wire.hpp.
struct SgatStepRequest {
  std::uint64_t subgraph = 0;
  std::string search;
  JobBudget budget;
  std::uint64_t batch_size = 8;
  std::int32_t parallel = 8;  ///< TUNING_PARALLEL_NUM
  std::uint64_t seed = 0;
  std::vector<Configuration> initial;                        ///< measured first
  std::vector<std::pair<Configuration, Measurement>> known;  ///< measured by the plan already
  /// What decides the subgraphs and their spaces (`sgat_tasks`): the job's options.
  bool nonhomo_split = false;
  std::int64_t max_slices = 32;
  std::uint64_t min_kernels = 2;
  std::uint64_t max_kernels = 32;
};

/// Options of an SGAT job. Aggregate: `aoe::SgatOptions{.nonhomo_split = true}`.
struct SgatOptions {
  std::string search = "evolutionary";  ///< a name of aoe::make_search
  JobBudget budget = sgat_budget_preset.o2;
  std::uint64_t seed = 0;
  bool repeat_tune = false;    ///< REPEAT_TUNE: re-tune subgraphs the bank holds
  bool nonhomo_split = false;  ///< --Fnonhomo_split: slice counts that do not divide the batch
  std::int64_t max_slices = 32;
  SplitOptions split{};
  int parallel = 8;            ///< TUNING_PARALLEL_NUM
  std::size_t batch_size = 8;  ///< strategies proposed and scored together
  std::optional<std::filesystem::path> tuned_model = std::nullopt;  ///< --output
  /// --reload: continue the job that the checkpoint of this model in the work directory
  /// (sgat_checkpoint_file) says was cut short; without a checkpoint the job starts afresh
  /// (docs/sgat.md#reload).
  bool reload = false;
  /// The work directory, whether an unsatisfied subgraph (nothing faster than the untuned
  /// graph) is recorded, the stop flag, the progress callback and where the steps run.
  JobRun<SgatEvent, SgatStepRequest, StepOutcome> run{};
};

/// What a job produced: the report, the result file and the tuned model.
struct SgatJobResult : JobResult<SgatReport> {
  std::filesystem::path tuned_model_file;
  std::size_t subgraphs = 0;  ///< in the model
  /// --reload continued a checkpoint: the first subgraph this run accounted (the model's count
  /// when the checkpoint's job had ended); none: the job started afresh.
  std::optional<std::size_t> resumed_from;
};

namespace detail {

/// AOE's `feature` of a subgraph: per operator its type, input shapes and element sizes.
inline boost::json::object sgat_feature(const SubgraphSpace& sp) {
  boost::json::array ops;
  const Graph& g = sp.graph();
  for (std::size_t n = 0; n + 1 < g.nodes.size(); ++n) {
    boost::json::object op;
    op["op"] = g.nodes[n].type;
    boost::json::array in;
    boost::json::array dsize;
    for (const auto& t : g.nodes[n].inputs) {
      boost::json::array shape;
      for (const auto d : t.desc.shape) shape.push_back(d);
      in.push_back(std::move(shape));
      dsize.push_back(static_cast<std::int64_t>(size_of(t.desc.dtype)));
    }
    op["in"] = std::move(in);
    op["dsize"] = std::move(dsize);
    ops.push_back(std::move(op));
  }
  boost::json::object one;
  one["struct"] = std::move(ops);
  boost::json::array features;
  features.push_back(std::move(one));
  boost::json::object f;
  f["feature"] = std::move(features);
  return f;
}

/// AOE's `strategy` of a scored strategy: end2EndTime (microseconds) and one group with, per
/// kernel operator in node order, its slice count (`cut`), whether it is fused with others
/// (`fusionType`) and its fusion scope (`scopeId`); `ubPass` the passes' switches; plus the
/// slices, the L2 choice and the formats chosen between operators.
inline boost::json::object sgat_strategy(const SubgraphSpace& sp, const SubgraphTiming& t) {
  const Graph& g = sp.graph();
  std::vector<std::int64_t> scope_of(g.nodes.size(), -1);
  std::vector<bool> fused(g.nodes.size(), false);
  for (std::size_t s = 0; s < t.scopes.size(); ++s) {
    for (const auto n : t.scopes[s].nodes) {
      scope_of[n] = static_cast<std::int64_t>(s);
      fused[n] = t.scopes[s].nodes.size() > 1;
    }
  }
  boost::json::array cut;
  boost::json::array fusion;
  boost::json::array scope;
  for (std::size_t n = 0; n + 1 < g.nodes.size(); ++n) {
    if (scope_of[n] < 0) continue;  // layout-only: no kernel
    cut.push_back(t.strategy.cut);
    fusion.push_back(static_cast<bool>(fused[n]));
    scope.push_back(scope_of[n]);
  }
  boost::json::object passes;
  for (std::size_t p = 0; p < 3; ++p) {
    if (sp.passes_present()[p])
      passes[sgat_pass_names[p]] = static_cast<bool>(t.strategy.passes[p]);
  }
  boost::json::array slices;
  for (const auto s : t.strategy.slices) slices.push_back(s);
  boost::json::object formats;
  for (const auto& f : sp.formats()) {
    const auto it = t.fractal.find(f.tensor);
    if (it != t.fractal.end() && it->second) {
      formats[std::to_string(f.node) + "." + std::to_string(f.output)] = "FRACTAL_NZ";
    }
  }
  boost::json::object group;
  group["cut"] = std::move(cut);
  group["fusionType"] = std::move(fusion);
  group["scopeId"] = std::move(scope);
  group["ubPass"] = std::move(passes);
  group["slices"] = std::move(slices);
  group["l2_optimize"] = t.strategy.l2_optimize;
  group["formats"] = std::move(formats);
  boost::json::array groups;
  groups.push_back(std::move(group));
  boost::json::object st;
  st["end2EndTime"] = round3(t.seconds * 1e6);
  st["group"] = std::move(groups);
  return st;
}

/// The tuned model's annotation of the nodes of one subgraph: "sgat" objects.
inline void sgat_annotate(boost::json::array& nodes, const SubgraphSpace& sp,
                          const SubgraphTiming& t, const std::string& repo_key) {
  const Subgraph& s = sp.subgraph();
  for (std::size_t n = s.begin; n < s.end; ++n) {
    boost::json::object a;
    a["subgraph"] = static_cast<std::int64_t>(s.index);
    a["repo_key"] = repo_key;
    nodes[n].as_object()["sgat"] = std::move(a);
  }
  for (std::size_t k = 0; k < t.scopes.size(); ++k) {
    const ScopeTiming& sc = t.scopes[k];
    for (const auto local : sc.nodes) {
      auto& a = nodes[s.begin + local].as_object()["sgat"].as_object();
      a["scope"] = static_cast<std::int64_t>(k);
      a["fused_type"] = sc.type;
      a["cut"] = t.strategy.cut;
      boost::json::array slices;
      for (const auto x : t.strategy.slices) slices.push_back(x);
      a["slices"] = std::move(slices);
      a["l2_optimize"] = t.strategy.l2_optimize;
    }
    const Node& last = sp.graph().nodes[sc.nodes.back()];
    auto& a = nodes[s.begin + sc.nodes.back()].as_object()["sgat"].as_object();
    const auto it = t.fractal.find(last.outputs.front().name);
    a["output_format"] = it != t.fractal.end() && it->second
                             ? std::string("FRACTAL_NZ")
                             : std::string(to_string(last.outputs.front().desc.format));
    a["output_in_l2"] = std::find(t.resident.begin(), t.resident.end(),
                                  last.outputs.front().name) != t.resident.end();
    a["performance(us)"] = round3(sc.seconds * 1e6);
  }
}

}  // namespace detail

namespace detail {

/// One subgraph of the model: its key, space, scorer and untuned timing (or why it has none).
struct SgatTask {
  Subgraph subgraph;
  SubgraphKey key;
  std::shared_ptr<const SubgraphSpace> space;
  std::optional<SubgraphScorer> scorer;
  std::optional<SubgraphTiming> base;
  std::string error;
};

/// Every subgraph's space and untuned time, first: the model's baseline is in the first write.
[[nodiscard]] inline std::vector<SgatTask> sgat_tasks(const Graph& graph, const sim::Soc& soc,
                                                      const SgatOptions& options,
                                                      double& baseline_ms) {
  std::vector<SgatTask> tasks;
  const SubgraphSpaceOptions space_options{.nonhomo_split = options.nonhomo_split,
                                           .max_slices = options.max_slices};
  const GraphIndex index(graph);  // one pass: each subgraph looks its tensors' readers up
  for (const auto& s : split_subgraphs(graph, options.split)) {
    SgatTask t{s, make_subgraph_key(index, s), nullptr, std::nullopt, std::nullopt, ""};
    auto sp = SubgraphSpace::create(index, s, soc, space_options);
    if (!sp) {
      t.error = sp.error().message;
    } else {
      t.space = std::make_shared<const SubgraphSpace>(std::move(*sp));
      t.scorer.emplace(t.space, soc);
      auto base = t.scorer->timing(t.scorer->default_configuration());
      if (base) {
        t.base = std::move(*base);
        baseline_ms += t.base->seconds * 1e3;
      } else {
        t.error = "the untuned subgraph cannot be timed: " + base.error().message;
      }
    }
    tasks.push_back(std::move(t));
  }
  return tasks;
}

/// What the job carries from one subgraph to the next.
struct SgatJobState {
  std::string model_name;
  std::set<std::uint64_t> tuned_keys;          ///< REPEAT_TUNE re-tunes a key once per job
  std::set<std::uint64_t> unsatisfied_in_job;  ///< not recorded (record_unsatisfied off)
};

using SgatStored = std::optional<std::pair<Configuration, Measurement>>;

/// The bank's strategy for the task, scored, when these flags allow it (else as none: tuned
/// as if new); a record whose strategy is not in the task's space (other flags or another
/// version wrote it) is `stale`: tuned as if new, then replaced (StoredLookup).
[[nodiscard]] inline Result<StoredLookup<std::pair<Configuration, Measurement>>> sgat_stored(
    const GraphBank& bank, const sim::Soc& soc, const SgatTask& task) {
  using Lookup = StoredLookup<std::pair<Configuration, Measurement>>;
  auto found = bank.lookup(soc.name, task.key);
  if (!found) return found.error();  // a bank that became unreadable: stop the job
  if (!found->has_value()) return Lookup{};
  auto cfg = stored_in_space(task.scorer->space(), (*found)->knowledge);
  if (!cfg.found) return Lookup{std::nullopt, cfg.stale};
  Measurement m = task.scorer->evaluate(*cfg.found);
  if (!m.ok()) return Lookup{};
  return Lookup{std::pair{std::move(*cfg.found), std::move(m)}, false};
}

/// One subgraph as planned (rank 0, in task order): `failed` (it cannot be timed), `hit`,
/// `later` (an earlier subgraph of this wave tunes the same key, or the job found it
/// unsatisfied: decided when accounting, as one process would) or `tune` (request `step`).
struct SgatPlan {
  enum class Action : std::uint8_t { failed, hit, later, tune };
  Action action = Action::failed;
  SgatStored stored;
  bool stale = false;  ///< the bank's record no longer fits the space: replaced when stored
  std::size_t step = 0;
};

/// What a wave's plan collects: its steps' requests, their costs and the keys tuned.
struct SgatWave {
  std::vector<SgatStepRequest> requests;
  std::vector<double> costs;
  std::set<std::uint64_t> keys;
};

/// Plans subgraph `index`: bank lookup and, when it must be tuned, the request of its step,
/// which starts from the stored strategy and the default (both measured here and handed back
/// by KnownMeasure, not measured again; docs/search.md#transfer).
[[nodiscard]] inline Result<SgatPlan> sgat_plan(const SgatTask& task, std::uint64_t index,
                                                const GraphBank& bank, const sim::Soc& soc,
                                                const SgatOptions& options, SgatJobState& job,
                                                SgatWave& wave) {
  SgatPlan plan;
  if (!task.base) return plan;
  auto stored = sgat_stored(bank, soc, task);
  if (!stored) return stored.error();
  plan.stored = std::move(stored->found);
  plan.stale = stored->stale;
  const std::uint64_t key = task.key.hash;
  const bool tuned_in_job = !job.tuned_keys.insert(key).second;
  if (wave.keys.contains(key) || (!plan.stored && job.unsatisfied_in_job.contains(key))) {
    plan.action = SgatPlan::Action::later;
    return plan;
  }
  if (plan.stored && (!options.repeat_tune || tuned_in_job)) {
    plan.action = SgatPlan::Action::hit;
    return plan;
  }
  plan.action = SgatPlan::Action::tune;
  wave.keys.insert(key);
  const double base = task.base->seconds;
  const Configuration def = task.scorer->default_configuration();
  SgatStepRequest q{.subgraph = index,
                    .search = options.search,
                    .budget = options.budget,
                    .batch_size = options.batch_size,
                    .parallel = options.parallel,
                    .seed = derive_seed(options.seed, key + (plan.stored ? 1 : 0)),
                    .initial = {},
                    .known = {{def, Measurement::success(base, {}, base)}},  // = evaluate(def)
                    .nonhomo_split = options.nonhomo_split,
                    .max_slices = options.max_slices,
                    .min_kernels = options.split.min_kernels,
                    .max_kernels = options.split.max_kernels};
  if (plan.stored) {
    q.initial.push_back(plan.stored->first);
    q.known.push_back(*plan.stored);
  }
  q.initial.push_back(def);
  plan.step = wave.requests.size();
  wave.requests.push_back(std::move(q));
  wave.costs.push_back(task.scorer->space().raw_size());
  return plan;
}

/// The bank accounting of a tuned subgraph (`account`): the step's best stored when it beats
/// what the subgraph started from; `use` is the strategy in use after it.
[[nodiscard]] inline Result<void> sgat_account(const SgatTask& task, const SgatPlan& plan,
                                               const StepOutcome& r, GraphBank& bank,
                                               const sim::Soc& soc, const SgatOptions& options,
                                               SgatJobState& job, SgatSubgraphReport& rep,
                                               Configuration& use, double& use_value) {
  const SubgraphScorer& scorer = *task.scorer;
  const Space& space = scorer.space();
  const double base = task.base->seconds;
  const Configuration def = use;
  if (plan.stored)
    std::tie(use, use_value) = std::pair{plan.stored->first, plan.stored->second.value};
  rep.before_ms = use_value * 1e3;
  const auto record = [&](const Configuration& c, double value,
                          std::string policy) -> Result<StoreOutcome> {
    auto timing = scorer.timing(c);
    if (!timing) return timing.error();
    GraphBankRecord rec{task.key.repo_key(),
                        task.key.signature,
                        job.model_name,
                        static_cast<std::int64_t>(task.subgraph.index),
                        space.named_values(c),
                        value,
                        sgat_feature(*task.space),
                        sgat_strategy(*task.space, *timing),
                        Provenance{std::move(policy), r.history.size(), utc_timestamp(),
                                   sim::model_timing(soc.name)}};
    return bank.store(soc.name, rec, plan.stale);
  };
  auto acc = account(
      plan.stored.has_value(), false, r.found() && r.best_value < use_value,
      options.run.record_unsatisfied,
      [&] { return record(*r.best_configuration, r.best_value, r.policy); },
      [&] { return record(def, base, "default"); });
  if (!acc) return acc.error();
  rep.outcome = acc->outcome;
  if (acc->use_found) std::tie(use, use_value) = std::pair{*r.best_configuration, r.best_value};
  if (!plan.stored && !acc->use_found && !options.run.record_unsatisfied) {
    job.unsatisfied_in_job.insert(task.key.hash);
  }
  return {};
}

/// One subgraph accounted (rank 0, in task order): its plan and step read, the bank written,
/// its strategy on the tuned model's nodes. Returns whether the job was interrupted.
[[nodiscard]] inline Result<bool> sgat_subgraph(const SgatTask& task, SgatPlan plan,
                                                Result<StepOutcome>* step, GraphBank& bank,
                                                const sim::Soc& soc, const SgatOptions& options,
                                                SgatJobState& job, SgatSubgraphReport& rep,
                                                boost::json::array& model_nodes) {
  rep.index = task.subgraph.index;
  rep.name = task.subgraph.name;
  rep.repo_key = task.key.repo_key();
  rep.outcome = SgatOutcome::failed;
  if (!task.base) {
    rep.error = task.error;
    return false;
  }
  if (plan.action == SgatPlan::Action::tune && !*step) {
    rep.error = "its tuning step failed: " + step->error().message;
    return false;
  }
  const double base = task.base->seconds;
  rep.default_ms = base * 1e3;
  rep.before_ms = base * 1e3;
  rep.outcome = SgatOutcome::unsatisfied;
  Configuration use = task.scorer->default_configuration();
  double use_value = base;
  if (plan.action == SgatPlan::Action::later) {
    auto now = sgat_stored(bank, soc, task);  // the bank as the earlier subgraph left it
    if (!now) return now.error();
    plan.stored = std::move(now->found);
    plan.stale = now->stale;
    if (plan.stored) plan.action = SgatPlan::Action::hit;
  }
  if (plan.action == SgatPlan::Action::hit) {
    rep.outcome = SgatOutcome::hit;
    std::tie(use, use_value) = std::pair{plan.stored->first, plan.stored->second.value};
    rep.before_ms = use_value * 1e3;
  } else if (plan.action == SgatPlan::Action::tune) {
    rep.evaluations = (*step)->history.size();
    if ((*step)->interrupted) return true;
    auto ok = sgat_account(task, plan, **step, bank, soc, options, job, rep, use, use_value);
    if (!ok) return ok.error();
  }
  if (use_value > base) {
    // A bank strategy the simulator now times slower than the untuned graph (a bank
    // written by another version) is not applied: the tuned graph is never slower.
    use = task.scorer->default_configuration();
    use_value = base;
  }
  rep.after_ms = use_value * 1e3;
  rep.strategy = task.scorer->space().to_string(use);
  if (auto timing = task.scorer->timing(use)) {
    sgat_annotate(model_nodes, *task.space, *timing, rep.repo_key);
    rep.values = task.scorer->space().named_values(use);
  }
  return false;
}

}  // namespace detail

/// The options that decide `sgat_tasks`, as a worker rank rebuilds them from a request.
[[nodiscard]] inline SgatOptions sgat_task_options(const SgatStepRequest& request) {
  SgatOptions o;
  o.nonhomo_split = request.nonhomo_split;
  o.max_slices = request.max_slices;
  o.split.min_kernels = request.min_kernels;
  o.split.max_kernels = request.max_kernels;
  return o;
}

/// One SGAT tuning step, as any rank runs it: `request` on `task` (subgraph `request.subgraph`
/// of `sgat_tasks`). Throws aoe::Error when the search name is unknown.
[[nodiscard]] inline StepOutcome sgat_step(const detail::SgatTask& task,
                                           const SgatStepRequest& request,
                                           const std::atomic<bool>* stop) {
  if (!task.scorer)
    throw Error(Errc::invalid_argument,
                "subgraph " + task.subgraph.name + " cannot be timed: " + task.error);
  SearchStart start;
  start.initial = request.initial;
  return StepOutcome::of(tune_step(
      task.scorer->space(), step_search(make_job_search(request.search, start), request.search),
      detail::KnownMeasure<ParallelMeasure<SubgraphScorer>>(
          ParallelMeasure<SubgraphScorer>(*task.scorer, request.parallel), request.known),
      request.seed, StepLimits{request.budget, request.batch_size, stop}));
}

namespace detail {

/// What decides an SGAT job's outputs, as its checkpoint records it (check_sgat_checkpoint_job):
/// the model (a digest of its graph and of its subgraphs' keys), the SoC, the search, its budget
/// and seed, the flags that shape the subgraphs and their spaces, the bank and tuned model files.
[[nodiscard]] inline boost::json::object sgat_job_identity(
    const boost::json::object& model, const std::vector<SgatTask>& tasks, const sim::Soc& soc,
    const GraphBank& bank, const SgatOptions& o, const std::filesystem::path& tuned) {
  std::string keys;
  for (const auto& t : tasks) keys += t.key.repo_key() + ",";
  boost::json::object id;
  id["model"] = std::to_string(fnv1a(boost::json::serialize(model)));
  id["subgraphs"] = static_cast<std::int64_t>(tasks.size());
  id["subgraph_keys"] = std::to_string(fnv1a(keys));
  id["soc"] = soc.name;
  id["search"] = o.search;
  id["evaluations"] = static_cast<std::int64_t>(o.budget.evaluations);
  id["patience"] = static_cast<std::int64_t>(o.budget.patience);
  id["seed"] = std::to_string(o.seed);
  id["repeat_tune"] = o.repeat_tune;
  id["nonhomo_split"] = o.nonhomo_split;
  id["max_slices"] = o.max_slices;
  id["min_kernels"] = static_cast<std::int64_t>(o.split.min_kernels);
  id["max_kernels"] = static_cast<std::int64_t>(o.split.max_kernels);
  id["batch_size"] = static_cast<std::int64_t>(o.batch_size);
  id["record_unsatisfied"] = o.run.record_unsatisfied;
  id["graph_bank"] = bank.file(soc.name).string();
  id["tuned_model"] = tuned.string();
  return id;
}

/// SGAT's schedule (job_driver.hpp): the model's subgraphs in order, tuned in waves of
/// job_wave_width (job_skeleton.hpp): a wave is planned, its steps run at once, then its
/// subgraphs are accounted one by one. The stop flag is looked at before each wave.
class SgatSchedule {
 public:
  using Output = SgatJobResult;
  static constexpr std::string_view job = "sgat";
  static constexpr bool late_stop_interrupts = true;

  /// `checkpoint`: the checkpoint --reload continues (none: the job starts afresh).
  SgatSchedule(const Graph& graph, const sim::Soc& soc, GraphBank& bank, const SgatOptions& options,
               std::optional<SgatCheckpoint> checkpoint = std::nullopt)
      : graph_(graph), soc_(soc), bank_(bank), options_(options), resume_(std::move(checkpoint)) {
    if (resume_) {
      resumed_ = JobResume{resume_->timestamp, resume_->tid, resume_->result_file,
                           resume_->tuning_seconds, resume_->next};
    }
  }

  [[nodiscard]] const std::string& name() const { return graph_.name; }

  [[nodiscard]] const JobResume* resumed() const { return resumed_ ? &*resumed_ : nullptr; }

  [[nodiscard]] Result<void> check() {
    if (auto s = make_job_search(options_.search); !s) return s.error();
    return bank_.check_writable(soc_.name);
  }

  [[nodiscard]] Result<std::size_t> prepare(Output& out) {
    out.tuned_model_file = options_.tuned_model.value_or(
        default_tuned_model_path(options_.run.result_dir, graph_.name, out.report.timestamp));
    out.report.timing = sim::model_timing(soc_.name);
    tasks_ = sgat_tasks(graph_, soc_, options_, out.report.baseline_ms);
    out.subgraphs = tasks_.size();
    // The tuned model: the graph with each subgraph's strategy on its nodes.
    model_ = tuned_model_json(graph_, {});
    job_ = SgatJobState{graph_.name, {}, {}};
    identity_ = sgat_job_identity(model_, tasks_, soc_, bank_, options_, out.tuned_model_file);
    checkpoint_file_ = sgat_checkpoint_file(options_.run.result_dir, graph_.name);
    if (resume_) {
      if (auto ok = resume(out); !ok) return ok.error();
    }
    return tasks_.size();
  }

  [[nodiscard]] bool stop_point(std::size_t t) const { return t % job_wave_width == 0; }

  [[nodiscard]] Result<TaskDone> run_task(std::size_t i, Output& out) {
    if (i % job_wave_width == 0) {
      // The checkpoint first, before the wave writes the bank: a job cut short in this wave is
      // reloaded from its start, with the wave's bank records put back as they are now.
      if (auto ok = save_checkpoint(i, out); !ok) return ok.error();
      if (auto ok = run_wave(i); !ok) return ok.error();
    }
    const auto& plan = plans_[i % job_wave_width];
    SgatSubgraphReport rep;
    auto stopped = sgat_subgraph(
        tasks_[i], plan, plan.action == SgatPlan::Action::tune ? &steps_[plan.step] : nullptr,
        bank_, soc_, options_, job_, rep, model_["nodes"].as_array());
    if (!stopped) return stopped.error();
    const bool interrupted = *stopped;
    if (!interrupted) out.report.subgraphs.push_back(rep);
    // Rewritten after every subgraph that was tuned or failed; bank hits are folded into the
    // next write, and the job's end writes the file in any case.
    return TaskDone{rep.evaluations > 0 || rep.failed() || interrupted, interrupted};
  }

  void finished(std::size_t i, const Output& out) const {
    event(SgatEvent::Kind::finished, i, &out.report.subgraphs.back());
  }

  /// The tuned model; then, when the job ended, the checkpoint says so (a reload of it writes
  /// the same files again).
  [[nodiscard]] Result<void> write_model(const Output& out) const {
    auto text = aoe::detail::serialize_json(model_, out.tuned_model_file.string());
    if (!text) return text.error();
    if (auto ok = write_tuned_model_text(out.tuned_model_file, *text); !ok) return ok.error();
    if (out.report.interrupted) return {};
    return save_checkpoint(tasks_.size(), out);
  }

 private:
  void event(SgatEvent::Kind kind, std::size_t i, const SgatSubgraphReport* s) const {
    if (options_.run.on_event)
      options_.run.on_event({kind, i, tasks_.size(), s, tasks_[i].subgraph.name});
  }

  /// Plans the wave that starts at task `first` (a task learns only from earlier waves) and
  /// runs its steps at once, here or over the ranks.
  [[nodiscard]] Result<void> run_wave(std::size_t first) {
    const std::size_t end = std::min(tasks_.size(), first + job_wave_width);
    SgatWave wave;
    plans_.clear();
    for (std::size_t i = first; i < end; ++i) {
      event(SgatEvent::Kind::started, i, nullptr);
      auto plan = sgat_plan(tasks_[i], i, bank_, soc_, options_, job_, wave);
      if (!plan) return plan.error();
      plans_.push_back(std::move(*plan));
    }
    const StepFunction<SgatStepRequest, StepOutcome> local = [this](const SgatStepRequest& q) {
      return sgat_step(tasks_[q.subgraph], q, options_.run.stop);
    };
    steps_ = run_steps(options_.run.executor, std::span<const SgatStepRequest>(wave.requests),
                       std::span<const double>(wave.costs), local);
    return {};
  }

  /// The checkpoint of the job when the subgraphs before `next` are accounted: the wave that
  /// starts there with its keys' bank records, or, at the model's end, the finished job.
  [[nodiscard]] Result<void> save_checkpoint(std::size_t next, const Output& out) const {
    SgatCheckpoint cp{identity_,
                      out.report.timestamp,
                      out.report.tid,
                      out.result_file,
                      out.report.tuning_seconds,
                      next,
                      next == tasks_.size(),
                      out.report.subgraphs,
                      {job_.tuned_keys.begin(), job_.tuned_keys.end()},
                      {job_.unsatisfied_in_job.begin(), job_.unsatisfied_in_job.end()},
                      {}};
    std::set<std::uint64_t> keys;
    for (std::size_t i = next; i < std::min(tasks_.size(), next + job_wave_width); ++i) {
      const SgatTask& t = tasks_[i];
      if (!t.base || !keys.insert(t.key.hash).second) continue;
      auto before = bank_.lookup(soc_.name, t.key);
      if (!before) return before.error();
      cp.undo.push_back({t.key, std::move(*before)});
    }
    return write_sgat_checkpoint(checkpoint_file_, cp, bank_);
  }

  /// Takes the checkpoint's job (--reload): checks it is this job, puts the bank records of its
  /// next wave back as they were, and takes its subgraphs, their strategies on the tuned
  /// model's nodes and the job's state.
  [[nodiscard]] Result<void> resume(Output& out) {
    const SgatCheckpoint& cp = *resume_;
    if (auto ok = check_sgat_checkpoint_job(cp, identity_, checkpoint_file_); !ok) {
      return ok.error();
    }
    if (cp.next > tasks_.size() || (cp.next % job_wave_width != 0 && cp.next != tasks_.size())) {
      return make_error(Errc::schema_error, checkpoint_file_.string() +
                                                ": /next: expected the first subgraph of a "
                                                "wave of " +
                                                std::to_string(job_wave_width) +
                                                ", or the model's " +
                                                std::to_string(tasks_.size()) + " subgraphs");
    }
    for (const auto& u : cp.undo) {
      if (auto ok = bank_.restore(soc_.name, u.key, u.before); !ok) return ok.error();
    }
    auto& nodes = model_["nodes"].as_array();
    for (std::size_t i = 0; i < cp.subgraphs.size(); ++i) {
      const SgatSubgraphReport& s = cp.subgraphs[i];
      if (s.values.empty() || !tasks_[i].scorer) continue;
      std::optional<SubgraphTiming> timing;
      if (const auto use = tasks_[i].scorer->space().find(s.values)) {
        if (auto t = tasks_[i].scorer->timing(*use)) timing = std::move(*t);
      }
      if (!timing) {
        return make_error(Errc::schema_error, checkpoint_file_.string() + ": /subgraphs/" +
                                                  std::to_string(i) +
                                                  "/values: not a strategy of subgraph " + s.name);
      }
      sgat_annotate(nodes, *tasks_[i].space, *timing, s.repo_key);
    }
    out.report.subgraphs = cp.subgraphs;
    job_.tuned_keys = {cp.tuned_keys.begin(), cp.tuned_keys.end()};
    job_.unsatisfied_in_job = {cp.unsatisfied_in_job.begin(), cp.unsatisfied_in_job.end()};
    out.resumed_from = cp.next;
    return {};
  }

  const Graph& graph_;
  const sim::Soc& soc_;
  GraphBank& bank_;
  const SgatOptions& options_;
  std::optional<SgatCheckpoint> resume_;
  std::optional<JobResume> resumed_;
  boost::json::object identity_;
  std::filesystem::path checkpoint_file_;
  std::vector<SgatTask> tasks_;
  boost::json::object model_;
  SgatJobState job_{};
  std::vector<SgatPlan> plans_;  ///< of the current wave
  std::vector<Result<StepOutcome>> steps_;
};

}  // namespace detail

/// Runs SGAT on `graph` for the SoC of `backend` (its subgraph scorer is the simulator's model of
/// that SoC: L2, HBM and the Cube), with the graph bank `bank`. The subgraphs are tuned in waves
/// (job_skeleton.hpp), their steps run by `options.run.executor` (here, or over MPI ranks), by
/// the job driver (job_driver.hpp). Errors are those of the environment (bank, work directory,
/// result file) and a bad search name; a subgraph that cannot be timed (an operator the
/// simulator has no model for) is reported in `tuning_failed_subgraphs` and the job goes on.
/// When `options.run.stop` is set during the job, the job ends after the current batch with the
/// report saying "tune tuning incomplete" and returns Errc::interrupted with the result in
/// `partial`. At the start of every wave and at the end, the job writes its checkpoint
/// (sgat_checkpoint.hpp); with `options.reload` a job cut short there (killed, interrupted, out
/// of disk) goes on from that wave, and ends as if it had never stopped. A checkpoint of
/// another job (other flags, another model) is refused (invalid_argument).
[[nodiscard]] inline Result<SgatJobResult> run_sgat(const Graph& graph,
                                                    const SimulatorBackend& backend,
                                                    GraphBank& bank, const SgatOptions& options,
                                                    SgatJobResult* partial = nullptr) {
  std::optional<SgatCheckpoint> checkpoint;
  if (options.reload) {
    auto cp = read_sgat_checkpoint(sgat_checkpoint_file(options.run.result_dir, graph.name), bank);
    if (!cp) return cp.error();
    checkpoint = std::move(*cp);
  }
  detail::SgatSchedule schedule(graph, backend.soc(), bank, options, std::move(checkpoint));
  return run_job(schedule, options.run.result_dir, options.run.stop, partial);
}

}  // namespace aoe

#endif  // AOE_JOBS_SGAT_SGAT_JOB_HPP
