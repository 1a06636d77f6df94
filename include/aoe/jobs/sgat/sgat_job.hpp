// The SGAT job (subgraph tuning, AOE job_type 1 / AOE_MODE 1; docs/sgat.md): split the model
// into subgraphs -> per subgraph, graph-bank lookup by its structure key -> tune its strategy
// (slices, L2 residency, fusion scopes, UB-fusion passes, formats) on aoe::Tuner with the
// simulator scoring the whole subgraph -> account it as hit / add / update / reserved /
// unsatisfied / failed -> result file rewritten after every subgraph -> tuned model.
#ifndef AOE_JOBS_SGAT_SGAT_JOB_HPP
#define AOE_JOBS_SGAT_SGAT_JOB_HPP

#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/core/stop_conditions.hpp"
#include "aoe/core/tuner.hpp"
#include "aoe/detail/write_json.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/graph/graph_index.hpp"
#include "aoe/jobs/detail/transfer.hpp"
#include "aoe/jobs/opat_report.hpp"
#include "aoe/jobs/parallel_measure.hpp"
#include "aoe/jobs/sgat/graph_bank.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/jobs/sgat/subgraph_key.hpp"
#include "aoe/jobs/sgat/subgraph_scorer.hpp"
#include "aoe/jobs/sgat/subgraph_space.hpp"
#include "aoe/jobs/sgat/subgraph_split.hpp"
#include "aoe/jobs/tuned_model_writer.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/repo/memory_repository.hpp"
#include "aoe/search/by_name.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// Strategies evaluated per subgraph, and evaluations without improvement after which a
/// subgraph's tuning stops.
struct SgatBudget {
  std::size_t evaluations = 0;
  std::size_t patience = 0;
};

/// AOE's --tune_optimization_level presets for SGAT: O2 (normal, the default) and O1 (high
/// performance, four times the budget).
[[nodiscard]] inline Result<SgatBudget> sgat_budget_preset(std::string_view level) {
  if (level == "O2") return SgatBudget{.evaluations = 240, .patience = 96};
  if (level == "O1") return SgatBudget{.evaluations = 960, .patience = 384};
  return make_error(Errc::invalid_argument, "--tune_optimization_level='" + std::string(level) +
                                                "': expected O1 (high performance) or O2 "
                                                "(normal, the default)");
}

/// What happened, for a progress display.
struct SgatEvent {
  enum class Kind : std::uint8_t { started, finished } kind = Kind::started;
  std::size_t index = 0;                         ///< of the subgraph, 0-based
  std::size_t count = 0;                         ///< subgraphs in the model
  const SgatSubgraphReport* subgraph = nullptr;  ///< on finished
  std::string name;
};

/// Options of an SGAT job. Aggregate: `aoe::SgatOptions{.nonhomo_split = true}`.
struct SgatOptions {
  std::string search = "evolutionary";  ///< a name of aoe::make_search
  SgatBudget budget{.evaluations = 240, .patience = 96};
  std::uint64_t seed = 0;
  bool repeat_tune = false;    ///< REPEAT_TUNE: re-tune subgraphs the bank holds
  bool nonhomo_split = false;  ///< --Fnonhomo_split: slice counts that do not divide the batch
  std::int64_t max_slices = 32;
  SplitOptions split{};
  int parallel = 8;            ///< TUNING_PARALLEL_NUM
  std::size_t batch_size = 8;  ///< strategies proposed and scored together
  /// Record an unsatisfied subgraph (nothing faster than the untuned graph) in the bank with
  /// the untuned strategy (provenance policy "default"), so the next job counts it as a hit
  /// instead of tuning it again. AOE writes nothing for it; false does the same.
  bool record_unsatisfied = true;
  std::filesystem::path result_dir = ".";  ///< ASCEND_WORK_PATH or the working dir
  std::optional<std::filesystem::path> tuned_model = std::nullopt;  ///< --output
  const std::atomic<bool>* stop = nullptr;           ///< set by SIGINT/SIGTERM: end cleanly
  std::function<void(const SgatEvent&)> on_event{};  ///< progress
};

/// What a job produced.
struct SgatJobResult {
  SgatReport report;
  std::filesystem::path result_file;
  std::filesystem::path tuned_model_file;
  std::size_t subgraphs = 0;  ///< in the model
};

namespace detail {

/// Stops a tuning run when the job is asked to stop.
struct SgatStopObserver {
  const std::atomic<bool>* stop;
  [[nodiscard]] bool on_batch(std::span<const Trial> /*trials*/,
                              const TuningState& /*state*/) const {
    return stop != nullptr && stop->load();
  }
};

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

/// Runs SGAT on `graph` for `soc`, with the graph bank `bank`. Errors are those of the
/// environment (bank, work directory, result file) and a bad search name; a subgraph that
/// cannot be timed (an operator the simulator has no model for) is reported in
/// `tuning_failed_subgraphs` and the job goes on. When `options.stop` is set during the job,
/// the job ends after the current batch with the report saying "tune tuning incomplete" and
/// returns Errc::interrupted with the result in `partial`.
[[nodiscard]] inline Result<SgatJobResult> run_sgat(const Graph& graph, const sim::Soc& soc,
                                                    GraphBank& bank, const SgatOptions& options,
                                                    SgatJobResult* partial = nullptr) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  SgatJobResult job;
  job.report.tuning_name = graph.name;
  job.report.timestamp = aoe_timestamp();
  job.report.tid = static_cast<long>(::gettid());
  job.result_file = options.result_dir / sgat_result_file_name(job.report.timestamp);
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
  if (auto s = make_search(options.search); !s) return s.error();
  if (auto ok = bank.check_writable(soc.name); !ok) return ok.error();

  // Every subgraph's space and untuned time first: the model's baseline is in the first write.
  struct Task {
    Subgraph subgraph;
    SubgraphKey key;
    std::shared_ptr<const SubgraphSpace> space;
    std::optional<SubgraphScorer> scorer;
    std::optional<SubgraphTiming> base;
    std::string error;
  };
  const auto subgraphs = split_subgraphs(graph, options.split);
  job.subgraphs = subgraphs.size();
  std::vector<Task> tasks;
  const SubgraphSpaceOptions space_options{.nonhomo_split = options.nonhomo_split,
                                           .max_slices = options.max_slices};
  const GraphIndex index(graph);  // one pass: each subgraph looks its tensors' readers up
  for (const auto& s : subgraphs) {
    Task t{s, make_subgraph_key(index, s), nullptr, std::nullopt, std::nullopt, ""};
    auto sp = SubgraphSpace::create(index, s, soc, space_options);
    if (!sp) {
      t.error = sp.error().message;
    } else {
      t.space = std::make_shared<const SubgraphSpace>(std::move(*sp));
      t.scorer.emplace(t.space, soc);
      auto base = t.scorer->timing(t.scorer->default_configuration());
      if (base) {
        t.base = std::move(*base);
        job.report.baseline_ms += t.base->seconds * 1e3;
      } else {
        t.error = "the untuned subgraph cannot be timed: " + base.error().message;
      }
    }
    tasks.push_back(std::move(t));
  }

  const auto write_now = [&](bool durable) -> Result<void> {
    job.report.tuning_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return write_report(job.report, job.result_file, durable);
  };
  if (auto ok = write_now(false); !ok) return ok.error();

  // The tuned model: the graph with each subgraph's strategy on its nodes.
  boost::json::object model = tuned_model_json(graph, {});
  boost::json::array& model_nodes = model["nodes"].as_array();

  std::set<std::uint64_t> tuned_keys;          // REPEAT_TUNE re-tunes a key once per job
  std::set<std::uint64_t> unsatisfied_in_job;  // not recorded (record_unsatisfied off)
  const auto stopping = [&] { return options.stop != nullptr && options.stop->load(); };

  for (std::size_t i = 0; i < tasks.size() && !stopping(); ++i) {
    Task& task = tasks[i];
    if (options.on_event) {
      options.on_event({SgatEvent::Kind::started, i, tasks.size(), nullptr, task.subgraph.name});
    }
    SgatSubgraphReport rep;
    rep.index = task.subgraph.index;
    rep.name = task.subgraph.name;
    rep.repo_key = task.key.repo_key();
    bool interrupted = false;
    if (!task.base) {
      rep.outcome = SgatOutcome::failed;
      rep.error = task.error;
    } else {
      const SubgraphScorer& scorer = *task.scorer;
      const Space& space = scorer.space();
      const Configuration def = scorer.default_configuration();
      const double base = task.base->seconds;
      rep.default_ms = base * 1e3;
      auto found = bank.lookup(soc.name, task.key);
      if (!found) return found.error();  // a bank that became unreadable: stop the job
      std::optional<Configuration> stored_cfg;
      double stored_value = 0;
      Measurement stored_m;
      if (found->has_value()) {
        stored_cfg = space.find((*found)->knowledge);
        if (stored_cfg && space.is_valid(*stored_cfg)) {
          const Measurement m = scorer.evaluate(*stored_cfg);
          stored_m = m;
          if (m.ok()) {
            stored_value = m.value;
          } else {
            stored_cfg.reset();  // a strategy these flags do not allow: tune as if new
          }
        } else {
          stored_cfg.reset();
        }
      }
      Configuration use = def;
      double use_value = base;
      const bool tuned_in_job = !tuned_keys.insert(task.key.hash).second;
      if (stored_cfg && (!options.repeat_tune || tuned_in_job)) {
        rep.outcome = SgatOutcome::hit;
        use = *stored_cfg;
        use_value = stored_value;
        rep.before_ms = stored_value * 1e3;
      } else if (!stored_cfg && unsatisfied_in_job.contains(task.key.hash)) {
        rep.outcome = SgatOutcome::unsatisfied;  // the same subgraph as one before it
        rep.before_ms = base * 1e3;
      } else {
        // The search starts from the stored strategy and the default, both measured above and
        // handed back by KnownMeasure, not measured again (docs/search.md#transfer).
        SearchStart start;
        std::vector<std::pair<Configuration, Measurement>> known{
            {def, Measurement::success(base, {}, base)}};  // what scorer.evaluate(def) gives
        if (stored_cfg) {
          start.initial.push_back(*stored_cfg);
          known.emplace_back(*stored_cfg, stored_m);
        }
        start.initial.push_back(def);
        using Measure = detail::KnownMeasure<ParallelMeasure<SubgraphScorer>>;
        auto search = make_search(options.search, start);  // checked at the start of the job
        Tuner<AnySearch, Measure, MemoryRepository> tuner(
            std::move(*search),
            Measure(ParallelMeasure<SubgraphScorer>(scorer, options.parallel), std::move(known)),
            MemoryRepository{},
            TunerOptions{.seed = derive_seed(options.seed, task.key.hash + (stored_cfg ? 1 : 0)),
                         .batch_size = options.batch_size});
        const TuningResult r = tuner.tune(
            space,
            MaxEvaluations{options.budget.evaluations} || NoImprovement{options.budget.patience},
            detail::SgatStopObserver{options.stop});
        rep.evaluations = r.history.size();
        interrupted = r.reason == StopReason::observer;
        const double reference = stored_cfg ? stored_value : base;
        rep.before_ms = reference * 1e3;
        if (stored_cfg) {
          use = *stored_cfg;
          use_value = stored_value;
        }
        const auto record = [&](const Configuration& c, double value, std::string policy,
                                std::size_t evaluations) -> Result<StoreOutcome> {
          auto timing = scorer.timing(c);
          if (!timing) return timing.error();
          GraphBankRecord rec;
          rec.repo_key = task.key.repo_key();
          rec.signature = task.key.signature;
          rec.model_name = graph.name;
          rec.graph_id = static_cast<std::int64_t>(task.subgraph.index);
          rec.knowledge = space.named_values(c);
          rec.value = value;
          rec.feature = detail::sgat_feature(*task.space);
          rec.strategy = detail::sgat_strategy(*task.space, *timing);
          rec.provenance = Provenance{std::move(policy), evaluations, detail::utc_timestamp()};
          return bank.store(soc.name, rec);
        };
        if (interrupted) {
          rep.outcome = stored_cfg ? SgatOutcome::reserved : SgatOutcome::unsatisfied;
        } else if (r.found() && r.best_value < reference) {
          auto s =
              record(*r.best_configuration, r.best_value, std::string(r.policy), r.history.size());
          if (!s) return s.error();
          // Kept: the bank holds a faster strategy this job cannot use (another process stored
          // it meanwhile, or these flags do not allow it): ours is not written, but it is
          // faster than what this job started from, so the tuned model uses it.
          rep.outcome = *s == StoreOutcome::kept
                            ? (stored_cfg ? SgatOutcome::reserved : SgatOutcome::unsatisfied)
                            : (stored_cfg ? SgatOutcome::update : SgatOutcome::add);
          use = *r.best_configuration;
          use_value = r.best_value;
        } else {
          rep.outcome = stored_cfg ? SgatOutcome::reserved : SgatOutcome::unsatisfied;
          if (!stored_cfg && options.record_unsatisfied) {
            // The untuned strategy is the best found: say so in the bank (policy "default"),
            // so that the next job reuses it instead of tuning the same subgraph again.
            auto s = record(def, base, "default", r.history.size());
            if (!s) return s.error();
          } else if (!stored_cfg) {
            unsatisfied_in_job.insert(task.key.hash);
          }
        }
      }
      if (use_value > base) {
        // A bank strategy the simulator now times slower than the untuned graph (a bank
        // written by another version) is not applied: the tuned graph is never slower.
        use = def;
        use_value = base;
      }
      rep.after_ms = use_value * 1e3;
      rep.strategy = space.to_string(use);
      if (!interrupted) {
        auto timing = scorer.timing(use);
        if (timing) detail::sgat_annotate(model_nodes, *task.space, *timing, rep.repo_key);
      }
    }
    if (!interrupted) job.report.subgraphs.push_back(rep);
    // Rewritten after every subgraph that was tuned or failed; bank hits are folded into the
    // next write, and the job's end writes the file in any case.
    if (rep.evaluations > 0 || rep.failed() || interrupted) {
      if (auto ok = write_now(false); !ok) return ok.error();
    }
    if (options.on_event && !interrupted) {
      options.on_event({SgatEvent::Kind::finished, i, tasks.size(), &job.report.subgraphs.back(),
                        task.subgraph.name});
    }
    if (interrupted) break;
  }

  job.report.interrupted = stopping();
  job.report.finished = true;
  if (auto ok = write_now(true); !ok) return ok.error();
  if (!job.report.interrupted) {
    auto text = aoe::detail::serialize_json(model, job.tuned_model_file.string());
    if (!text) return text.error();
    if (auto ok = detail::write_tuned_model_text(job.tuned_model_file, *text); !ok) {
      return ok.error();
    }
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

#endif  // AOE_JOBS_SGAT_SGAT_JOB_HPP
