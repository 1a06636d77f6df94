// `aoe --job_type=2`: OPAT on the simulator, its flags and its progress output (docs/cli.md).
#include "opat_command.hpp"

#include "distributed.hpp"
#include "model_input.hpp"
#include "model_path.hpp"
#include "reports.hpp"

#if defined(AOE_WITH_ASCEND)
#include "ascend_device.hpp"
#endif

#include <aoe/io/parse_json.hpp>
#include <aoe/io/read_input.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/repo/knowledge_bank.hpp>

#include <CLI/App.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>

namespace aoe_tool {

namespace {

aoe::Result<void> read_tune_ops_file(const std::string& path, aoe::OpatOptions& o) {
  auto text = aoe::detail::read_input_file(path, "--tune_ops_file: a JSON object, docs/cli.md");
  if (!text) {
    return aoe::ErrorInfo(text.error().code, "--tune_ops_file=" + text.error().message);
  }
  auto parsed = aoe::detail::parse_json(*text, path);
  if (!parsed) return parsed.error();
  const boost::json::value& v = *parsed;
  if (!v.is_object()) {
    return aoe::make_error(aoe::Errc::schema_error, path +
                                                        ": /: expected {\"tune_ops_name\": [...], "
                                                        "\"tune_ops_type\": [...]}");
  }
  for (const char* key : {"tune_ops_name", "tune_ops_type"}) {
    const auto* list = v.as_object().if_contains(key);
    if (list == nullptr) continue;
    if (!list->is_array()) {
      return aoe::make_error(aoe::Errc::schema_error,
                             path + ": /" + key + ": expected an array of strings");
    }
    for (std::size_t i = 0; i < list->as_array().size(); ++i) {
      const auto& e = list->as_array()[i];
      if (!e.is_string()) {
        return aoe::make_error(
            aoe::Errc::schema_error,
            path + ": /" + key + "/" + std::to_string(i) + ": expected a string");
      }
      (std::string_view(key) == "tune_ops_name" ? o.tune_ops_names : o.tune_ops_types)
          .emplace_back(e.as_string());
    }
  }
  if (o.tune_ops_names.empty() && o.tune_ops_types.empty()) {
    return aoe::make_error(aoe::Errc::schema_error,
                           path + ": expected a non-empty \"tune_ops_name\" or \"tune_ops_type\"");
  }
  return {};
}

}  // namespace

void add_opat_options(CLI::App& app, OpatFlags& flags) {
  add_option_rows(app, {{"--tune_ops_file", &flags.tune_ops_file,
                         "JSON {\"tune_ops_name\": [...], \"tune_ops_type\": [...]}: tune only "
                         "these"}});
  app.add_flag("--Fop_format", flags.fop_format, "also tune the Format knowledge");
  app.add_flag("--Fop_impl", flags.fop_impl, "also tune the Impl knowledge (implementation mode)");
  app.add_flag("--Fdeeper_opat", flags.deeper_opat,
               "a deeper operator search: Schedule, Format and Impl, each with 4 times the "
               "evaluations (several times the tuning time)");
  add_option_rows(
      app, {{"--objective", &flags.objective,
             "operator tuning: what each operator's search minimises: time (default), energy, "
             "edp (energy x time) or pareto (the time-energy front; --pareto_pick picks the "
             "configuration in use); docs/energy.md"},
            {"--pareto_pick", &flags.pareto_pick,
             "with --objective=pareto: knee (default), fastest or least_energy"}});
  app.add_option("--power_cap", flags.power_cap,
                 "with --objective=time or pareto: watts; a configuration drawing more on "
                 "average is not used (default 0: no cap)");
}

int check_objective_flags(const CommonOptions& common, OpatFlags& flags, std::ostream& err) {
  auto kind = aoe::objective_kind_from(flags.objective, "--objective");
  auto pick = aoe::front_pick_from(flags.pareto_pick, "--pareto_pick");
  const auto usage = [&err](const std::string& why) {
    err << "aoe: " << why << "\n";
    return exit_usage;
  };
  if (!kind) return usage(kind.error().message);
  if (!pick) return usage(pick.error().message);
  if (!(flags.power_cap >= 0) || !std::isfinite(flags.power_cap)) {
    return usage("--power_cap=" + std::to_string(flags.power_cap) +
                 ": expected watts, a number >= 0 (0: no cap)");
  }
  if (flags.pareto_pick != "knee" && *kind != aoe::ObjectiveKind::pareto) {
    return usage("--pareto_pick: picks from a front, with --objective=pareto only");
  }
  if (flags.power_cap > 0 && *kind != aoe::ObjectiveKind::time &&
      *kind != aoe::ObjectiveKind::pareto) {
    return usage(
        "--power_cap: with --objective=time or pareto only (energy and edp count the "
        "power already)");
  }
  const aoe::Objective o{.kind = *kind, .power_cap_watts = flags.power_cap, .pick = *pick};
  if (!o.plain_time() && common.job_type != 2) {
    return usage("--objective=" + o.label() +
                 ": operator tuning (--job_type=2) only; subgraph and gradient tuning minimise "
                 "time");
  }
  if (!o.plain_time() && common.device != "simulator") {
    return usage("--objective=" + o.label() + ": --device=" + common.device +
                 " measures no energy; the simulator's energy model does (docs/energy.md)");
  }
  flags.parsed_objective = o;
  return exit_success;
}

namespace {

/// The exit code of an OPAT job that failed (not interrupted): on the NPU, a kernel catalogue
/// (AOE_ASCEND_KERNELS) that cannot be read is exit_input, an NPU that cannot be opened, is
/// busy or whose ACL call failed is exit_device; otherwise the model is loaded and what fails
/// is the bank or the work directory.
int opat_error_code(const aoe::ErrorInfo& e, bool on_ascend, const std::string& catalogue) {
  if (on_ascend) {
    if (!catalogue.empty() && e.message.find(catalogue) != std::string::npos) return exit_input;
    if (e.code == aoe::make_error_code(aoe::Errc::busy) ||
        e.code == aoe::make_error_code(aoe::Errc::device_error) ||
        e.code.category() != aoe::make_error_code(aoe::Errc::busy).category()) {
      return exit_device;
    }
  }
  return exit_bank;
}

/// --Fdeeper_opat (docs/cli.md#--fdeeper_opat): every knowledge kind is tuned, each with
/// deeper_opat_factor times the evaluations and patience; AOE's warning that it costs several
/// times the tuning time goes to `io.err` unless --log=null.
void deepen(aoe::OpatOptions& o, const CommonOptions& common, const Io& io) {
  o.format_tuning = true;
  o.impl_tuning = true;
  o.budget.evaluations *= deeper_opat_factor;
  o.budget.patience *= deeper_opat_factor;
  if (common.verbosity() >= 1) {
    io.err << "aoe: warning: --Fdeeper_opat: a deeper search (Schedule, Format and Impl, "
           << o.budget.evaluations << " evaluations per operator and kind, " << deeper_opat_factor
           << " times the budget) takes several times the tuning time of a normal job\n";
  }
}

/// Prints each operator as it ends (or draws the progress bar); every failure reaches stderr.
/// An operator's times end in `timing` (", simulated" or ", measured"), as the summary does.
std::function<void(const aoe::OpatEvent&)> opat_progress(const CommonOptions& common, const Io& io,
                                                         aoe::TimingKind timing) {
  const auto task = [](const aoe::OpatEvent& e) {
    return task_event(e, e.op_type, "operator", e.name + " (" + e.op_type + ")");
  };
  const auto line = [&io, timing](const aoe::OpatEvent& e, int verbosity) {
    const char* separator = "";
    for (const auto& k : e.report->kinds) {
      io.out << separator << aoe::to_string(k.kind) << " " << aoe::to_string(k.outcome) << " "
             << fixed(k.before_us, 3) << " us -> " << fixed(k.after_us, 3) << " us";
      if (k.before_j && k.after_j) {  // --objective other than time
        io.out << ", " << fixed(*k.before_j * 1e6, 3) << " uJ -> " << fixed(*k.after_j * 1e6, 3)
               << " uJ";
      }
      if (verbosity >= 3) io.out << " (" << e.report->evaluations << " evaluations)";
      separator = "; ";
    }
    if (!e.report->kinds.empty()) io.out << ", " << aoe::to_string(timing);
    if (!e.report->note.empty()) io.out << separator << console_text(e.report->note, true);
  };
  return task_progress_callback<aoe::OpatEvent>(common, io, task, line);
}

/// The end of an OPAT job that ran: under --model_path (`shared`) its report merged into the
/// job's one result file first (exit_bank when that fails), then the summary, the reports and
/// the last line (job_finished).
int opat_finished(const CommonOptions& common, const aoe::Graph& graph,
                  const aoe::OpatJobResult& result, const aoe::Timing& backend_timing,
                  const aoe::sim::Soc& soc, const Io& io, SharedResultFile* shared) {
  const auto& rep = result.report;
  const aoe::Timing timing = rep.timing.value_or(backend_timing);
  std::filesystem::path file = result.result_file;
  if (shared != nullptr) {
    if (auto merged = merge_result_file(file, *shared); !merged) {
      io.err << "aoe: --model_path: " << console_text(merged.error().message, true) << "\n";
      return exit_bank;
    }
    file = shared->file;
  }
  if (common.verbosity() >= 1) {
    print_job_summary(io, rep.total(), "operators", rep, rep.baseline_ms(), rep.result_ms(), file,
                      result.tuned_model_file, timing);
    const auto before = rep.energy_j(true), after = rep.energy_j(false);
    if (!rep.objective.plain_time() && before && after) {
      io.out << "aoe: objective " << rep.objective.label() << ": model energy "
             << fixed(*before * 1e3, 6) << " mJ -> " << fixed(*after * 1e3, 6) << " mJ ("
             << fixed(aoe::OpatReport::improvement(*before, *after) * 100.0, 2)
             << "% improvement), " << aoe::to_string(timing.kind) << "\n";
    }
  }
  return job_finished(
      write_opat_reports(common, graph, rep, soc, result.result_file, io), rep.tuning_name,
      fixed(aoe::OpatReport::improvement(rep.baseline_ms(), rep.result_ms()) * 100.0, 2) + "%",
      rep.count(aoe::OpatOutcome::failed) > 0 ? exit_ops_failed : exit_success, io, timing);
}

}  // namespace

int run_opat_command(const CommonOptions& common, const OpatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io,
                     SharedResultFile* shared, const aoe::Graph* given) {
  aoe::SimulatorBackend backend(soc, common.measure_latency);
  aoe::OpatOptions o{.scope = backend.scope(),
                     .format_tuning = flags.fop_format,
                     .impl_tuning = flags.fop_impl,
                     .objective = flags.parsed_objective};
  int code = exit_usage;
  const auto graph = start_model_job(aoe::make_opat_search(common.search_or("analytic")),
                                     aoe::opat_budget_preset(common.optimization_level), common,
                                     env, io, o, code, given);
  if (!graph) return code;
  if (flags.deeper_opat) deepen(o, common, io);
  if (!flags.tune_ops_file.empty()) {
    if (auto r = read_tune_ops_file(flags.tune_ops_file, o); !r) {
      io.err << "aoe: " << console_text(r.error().message, true) << "\n";
      return exit_input;
    }
  }
  const bool on_ascend = common.device == "ascend";
  o.run.on_event =
      opat_progress(common, io, on_ascend ? aoe::TimingKind::measured : backend.timing().kind);
  if (io.executors != nullptr) o.run.executor = io.executors->opat;  // mpirun: over the ranks

  aoe::KnowledgeBank bank({.custom_root = env.op_bank_root(),
                           .builtin_root = env.builtin_bank_root(),
                           .access = bank_access(env, common, io)});
  if (common.verbosity() >= 2) {
    io.out << "aoe: OPAT on " << console_text(graph->name) << " (" << graph->nodes.size()
           << " nodes), "
           << (on_ascend ? std::string("Ascend NPU") : common.soc_version + " simulator")
           << ", search " << common.search_or("analytic") << ", " << o.budget.evaluations
           << " evaluations per operator, bank " << env.op_bank_root().string() << "\n";
  }
  aoe::OpatJobResult partial;
  std::string catalogue;  // --device=ascend: the Ascend C kernel catalogue, AOE_ASCEND_KERNELS
  auto result = [&]() -> aoe::Result<aoe::OpatJobResult> {
#if defined(AOE_WITH_ASCEND)
    if (on_ascend) {
      if (io.getenv != nullptr) catalogue = (*io.getenv)("AOE_ASCEND_KERNELS").value_or("");
      AscendDeviceOptions device{.device_id = env.ascend_device_id, .run_loop = env.run_loop};
      if (io.executors != nullptr) device.local_rank = io.executors->local_rank;  // mpirun
      return run_opat_on_ascend(*graph, bank, o, device,
                                io.getenv != nullptr ? *io.getenv : aoe::process_getenv(), io.out,
                                &partial);
    }
#endif
    return aoe::run_opat(*graph, backend, bank, o, &partial);
  }();
  if (shows_progress_bar(common, io.interactive)) io.out << "\n";
  if (!result) {
    return job_failed(result.error(), partial.result_file, "the operators tuned so far",
                      opat_error_code(result.error(), on_ascend, catalogue), io);
  }
  return opat_finished(common, *graph, *result, backend.timing(), soc, io, shared);
}

}  // namespace aoe_tool
