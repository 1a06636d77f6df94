// `aoe --job_type=1`: SGAT on the simulator, its flag and its progress output (docs/sgat.md).
#include "sgat_command.hpp"

#include "distributed.hpp"
#include "model_input.hpp"
#include "reports.hpp"
#include <aoe/jobs/sgat/graph_bank.hpp>
#include <aoe/jobs/sgat/sgat_job.hpp>
#include <aoe/search/by_name.hpp>

#include <CLI/App.hpp>

#include <ostream>
#include <string>

namespace aoe_tool {

void add_sgat_options(CLI::App& app, SgatFlags& flags) {
  app.add_flag("--Fnonhomo_split", flags.nonhomo_split,
               "subgraph tuning (job_type 1): also try slice counts that do not divide the batch "
               "(uneven slices, batch 7 -> 4 + 3)");
}

int run_sgat_command(const CommonOptions& common, const SgatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io) {
  if (auto s = aoe::make_search(common.search); !s) {
    io.err << "aoe: --search: " << s.error().message << "\n";
    return exit_usage;
  }
  auto budget = aoe::sgat_budget_preset(common.optimization_level);
  if (!budget) {
    io.err << "aoe: " << budget.error().message << "\n";
    return exit_usage;
  }
  *budget = common.with_budget_flag(*budget);

  auto graph = load_model(common);
  if (!graph) {
    io.err << "aoe: " << graph.error().message << "\n";
    return model_exit_code(graph.error());
  }

  aoe::SgatOptions o{.search = common.search,
                     .budget = *budget,
                     .seed = common.seed,
                     .repeat_tune = env.repeat_tune,
                     .nonhomo_split = flags.nonhomo_split,
                     .parallel = env.tuning_parallel_num,
                     .result_dir = env.work_path(),
                     .stop = io.stop};
  if (io.executors != nullptr) o.executor = io.executors->sgat;  // mpirun: over the ranks
  if (!common.output.empty()) o.tuned_model = std::filesystem::path(common.output);

  const int verbosity = common.verbosity();
  const bool bar = io.interactive && common.progress_bar == "on";
  o.on_event = [&](const aoe::SgatEvent& e) {
    if (e.kind == aoe::SgatEvent::Kind::finished && e.subgraph != nullptr && e.subgraph->failed()) {
      // Every failure reason reaches stderr, whatever --log says (exit 6 says why there).
      io.err << "aoe: subgraph " << e.subgraph->name << " failed: " << e.subgraph->error << "\n";
    }
    if (bar) {
      const std::size_t done = e.index + (e.kind == aoe::SgatEvent::Kind::finished ? 1 : 0);
      draw_progress(io.out, done, e.count, e.name);
      return;
    }
    if (e.kind != aoe::SgatEvent::Kind::finished || verbosity < 2 || e.subgraph == nullptr) {
      return;
    }
    const auto& s = *e.subgraph;
    io.out << "[" << (e.index + 1) << "/" << e.count << "] " << s.name << ": ";
    if (s.failed()) {
      io.out << "failed: " << s.error << std::endl;
      return;
    }
    io.out << aoe::to_string(s.outcome) << " " << fixed(s.before_ms * 1e3, 3) << " us -> "
           << fixed(s.after_ms * 1e3, 3) << " us, repo_key " << s.repo_key;
    if (verbosity >= 3) {
      io.out << " (" << s.evaluations << " evaluations; " << s.strategy << ")";
    }
    io.out << std::endl;  // flushed: a pipe or a log file sees each subgraph as it ends
  };

  if (verbosity >= 1 && soc.split) {
    io.err << "aoe: warning: AOE itself does not offer subgraph tuning on Atlas A2 (" << soc.name
           << "); the simulator runs it anyway\n";
  }
  aoe::GraphBank bank({.root = env.graph_bank_root(), .access = bank_access(env, common, io)});
  if (verbosity >= 2) {
    io.out << "aoe: SGAT on " << graph->name << " (" << graph->nodes.size() << " nodes), "
           << common.soc_version << " simulator, search " << common.search << ", "
           << budget->evaluations << " evaluations per subgraph"
           << (flags.nonhomo_split ? ", uneven slices allowed" : "") << ", graph bank "
           << bank.file(soc.name).string() << "\n";
  }
  aoe::SgatJobResult partial;
  auto result = aoe::run_sgat(*graph, soc, bank, o, &partial);
  if (bar) io.out << "\n";
  if (!result) {
    if (result.error().code == aoe::make_error_code(aoe::Errc::interrupted)) {
      io.err << "aoe: interrupted; " << partial.result_file.string()
             << " holds the subgraphs tuned so far (tune tuning incomplete)\n";
      return exit_interrupted;
    }
    io.err << "aoe: " << result.error().message << "\n";
    return exit_bank;  // the model is loaded: what fails now is the bank or the work directory
  }
  const auto& rep = result->report;
  if (verbosity >= 1) {
    io.out << "aoe: " << result->subgraphs << " subgraphs: " << rep.count(aoe::SgatOutcome::add)
           << " added, " << rep.count(aoe::SgatOutcome::update) << " updated, "
           << rep.count(aoe::SgatOutcome::hit) << " bank hits, "
           << rep.count(aoe::SgatOutcome::reserved) << " reserved, "
           << rep.count(aoe::SgatOutcome::unsatisfied) << " unsatisfied, "
           << rep.count(aoe::SgatOutcome::failed) << " failed; model " << fixed(rep.baseline_ms, 3)
           << " ms -> " << fixed(rep.result_ms(), 3) << " ms\n";
    io.out << "aoe: result file " << result->result_file.string() << "\n";
    io.out << "aoe: tuned model " << result->tuned_model_file.string() << "\n";
  }
  if (const int code = write_sgat_reports(common, rep, soc, result->result_file, io);
      code != exit_success) {
    return code;
  }
  // The figure of the result file's model_performance_improvement (truncated, as AOE prints it).
  io.out << rep.tuning_name << " process finished. Performance improved by "
         << aoe::sgat_percent(aoe::SgatReport::improvement(rep.baseline_ms, rep.result_ms()))
         << "\n";
  return rep.count(aoe::SgatOutcome::failed) > 0 ? exit_ops_failed : exit_success;
}

}  // namespace aoe_tool
