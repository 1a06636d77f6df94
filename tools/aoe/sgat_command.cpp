// `aoe --job_type=1`: SGAT on the simulator, its flag and its progress output (docs/sgat.md).
#include "sgat_command.hpp"

#include "distributed.hpp"
#include "model_input.hpp"
#include "reports.hpp"
#include <aoe/jobs/sgat/graph_bank.hpp>
#include <aoe/jobs/sgat/sgat_job.hpp>
#include <aoe/search/by_name.hpp>

#include <CLI/App.hpp>

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <system_error>

namespace aoe_tool {

void add_sgat_options(CLI::App& app, SgatFlags& flags) {
  app.add_flag("--Fnonhomo_split", flags.nonhomo_split,
               "subgraph tuning (job_type 1): also try slice counts that do not divide the batch "
               "(uneven slices, batch 7 -> 4 + 3)");
  app.add_flag("--reload", flags.reload,
               "subgraph tuning (job_type 1): continue the job of this model that was cut short "
               "(killed, interrupted), from its checkpoint in the work directory; it ends as if "
               "it had never stopped (docs/sgat.md#reload)");
}

int check_sgat_only(const CommonOptions& common, const SgatFlags& flags, std::ostream& err) {
  if (flags.reload && common.job_type != 1) {
    err << "aoe: --reload: resumes subgraph tuning (--job_type=1) only, as AOE's\n";
    return exit_usage;
  }
  return exit_success;
}

namespace {

/// --reload without a checkpoint of the model, said before the job: it starts afresh. A
/// checkpoint that is there is read by the job, whose error names it when it cannot be.
void warn_no_checkpoint(const aoe::Graph& graph, const aoe::SgatOptions& o, const Io& io,
                        int verbosity) {
  const auto file = aoe::sgat_checkpoint_file(o.run.result_dir, graph.name);
  std::error_code ec;
  if (verbosity < 1 || std::filesystem::exists(file, ec) || ec) return;
  io.err << "aoe: warning: --reload: no checkpoint of " << console_text(graph.name)
         << " in the work directory (" << file.string()
         << "): the job starts from the first subgraph\n";
}

/// What --reload continued, once the job has ended: from which subgraph, or a job that had
/// ended already.
void say_reloaded(const aoe::Graph& graph, const aoe::SgatOptions& o, const aoe::SgatJobResult& r,
                  const Io& io) {
  const auto file = aoe::sgat_checkpoint_file(o.run.result_dir, graph.name).string();
  if (*r.resumed_from == r.subgraphs) {
    io.out << "aoe: --reload: the job of " << file
           << " had ended; its result file and tuned model were written again\n";
  } else {
    io.out << "aoe: --reload: continued " << file << " from subgraph " << *r.resumed_from + 1
           << " of " << r.subgraphs << "\n";
  }
}

/// Prints each subgraph as it ends (or draws the progress bar); every failure reaches stderr.
/// A subgraph's line ends in `timing` (", simulated"), as the summary does.
std::function<void(const aoe::SgatEvent&)> sgat_progress(const CommonOptions& common, const Io& io,
                                                         aoe::TimingKind timing) {
  const auto task = [](const aoe::SgatEvent& e) {
    const bool done = e.kind == aoe::SgatEvent::Kind::finished;
    return task_event(e, e.name, "subgraph", done ? e.report->name : e.name);
  };
  const auto line = [&io, timing](const aoe::SgatEvent& e, int verbosity) {
    const auto& s = *e.report;
    io.out << aoe::to_string(s.outcome) << " " << fixed(s.before_ms * 1e3, 3) << " us -> "
           << fixed(s.after_ms * 1e3, 3) << " us, repo_key " << s.repo_key;
    if (verbosity >= 3) io.out << " (" << s.evaluations << " evaluations; " << s.strategy << ")";
    io.out << ", " << aoe::to_string(timing);
  };
  return task_progress_callback<aoe::SgatEvent>(common, io, task, line);
}

}  // namespace

int run_sgat_command(const CommonOptions& common, const SgatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io) {
  aoe::SgatOptions o{.nonhomo_split = flags.nonhomo_split, .reload = flags.reload};
  int code = exit_usage;
  const auto graph =
      start_model_job(aoe::make_job_search(common.search_or("evolutionary")),
                      aoe::sgat_budget_preset(common.optimization_level), common, env, io, o, code);
  if (!graph) return code;
  o.run.on_event = sgat_progress(common, io, aoe::sim::model_timing(soc.name).kind);
  if (io.executors != nullptr) o.run.executor = io.executors->sgat;  // mpirun: over the ranks

  const int verbosity = common.verbosity();
  if (verbosity >= 1 && soc.split) {
    io.err << "aoe: warning: AOE itself does not offer subgraph tuning on Atlas A2 (" << soc.name
           << "); the simulator runs it anyway\n";
  }
  aoe::GraphBank bank({.root = env.graph_bank_root(), .access = bank_access(env, common, io)});
  if (verbosity >= 2) {
    io.out << "aoe: SGAT on " << console_text(graph->name) << " (" << graph->nodes.size()
           << " nodes), " << common.soc_version << " simulator, search "
           << common.search_or("evolutionary") << ", " << o.budget.evaluations
           << " evaluations per subgraph" << (flags.nonhomo_split ? ", uneven slices allowed" : "")
           << ", graph bank " << bank.file(soc.name).string() << "\n";
  }
  if (o.reload) warn_no_checkpoint(*graph, o, io, verbosity);
  aoe::SgatJobResult partial;
  auto result = aoe::run_sgat(*graph, aoe::SimulatorBackend(soc), bank, o, &partial);
  if (shows_progress_bar(common, io.interactive)) io.out << "\n";
  if (!result && result.error().code == aoe::make_error_code(aoe::Errc::invalid_argument)) {
    io.err << "aoe: " << console_text(result.error().message, true) << "\n";
    return exit_usage;  // --reload of another job's checkpoint
  }
  if (!result) {
    // The model is loaded: what fails now is the bank or the work directory.
    return job_failed(result.error(), partial.result_file, "the subgraphs tuned so far", exit_bank,
                      io);
  }
  if (result->resumed_from && verbosity >= 2) say_reloaded(*graph, o, *result, io);
  const auto& rep = result->report;
  const aoe::Timing timing = rep.timing.value_or(aoe::sim::model_timing(soc.name));
  if (verbosity >= 1) {
    print_job_summary(io, result->subgraphs, "subgraphs", rep, rep.baseline_ms, rep.result_ms(),
                      result->result_file, result->tuned_model_file, timing);
  }
  // The figure of the result file's model_performance_improvement (truncated, as AOE prints it).
  return job_finished(
      write_sgat_reports(common, *graph, rep, soc, result->result_file, io), rep.tuning_name,
      aoe::sgat_percent(aoe::SgatReport::improvement(rep.baseline_ms, rep.result_ms())),
      rep.count(aoe::SgatOutcome::failed) > 0 ? exit_ops_failed : exit_success, io, timing);
}

}  // namespace aoe_tool
