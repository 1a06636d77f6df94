// `aoe --job_type=2`: OPAT on the simulator, its flags and its progress output (docs/cli.md).
#include "opat_command.hpp"

#include "distributed.hpp"
#include "model_input.hpp"
#include "reports.hpp"

#if defined(AOE_WITH_ASCEND)
#include "ascend_device.hpp"
#endif

#include <aoe/detail/parse_json.hpp>
#include <aoe/detail/read_input.hpp>
#include <aoe/jobs/opat/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/repo/knowledge_bank.hpp>

#include <CLI/App.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <fstream>
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
  app.add_option("--tune_ops_file", flags.tune_ops_file,
                 "JSON {\"tune_ops_name\": [...], \"tune_ops_type\": [...]}: tune only these");
  app.add_flag("--Fop_format", flags.fop_format, "also tune the Format knowledge");
  app.add_flag("--Fop_impl", flags.fop_impl, "also tune the Impl knowledge (implementation mode)");
}

int run_opat_command(const CommonOptions& common, const OpatFlags& flags,
                     const aoe::Environment& env, const aoe::sim::Soc& soc, const Io& io) {
  if (auto s = aoe::make_opat_search(common.search); !s) {
    io.err << "aoe: --search: " << s.error().message << "\n";
    return exit_usage;
  }
  auto budget = aoe::opat_budget_preset(common.optimization_level);
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

  aoe::SimulatorBackend backend(soc, common.measure_latency);
  aoe::OpatOptions o{.scope = backend.scope(),
                     .search = common.search,
                     .budget = *budget,
                     .seed = common.seed,
                     .repeat_tune = env.repeat_tune,
                     .format_tuning = flags.fop_format,
                     .impl_tuning = flags.fop_impl,
                     .parallel = env.tuning_parallel_num,
                     .result_dir = env.work_path(),
                     .stop = io.stop};
  if (io.executors != nullptr) o.executor = io.executors->opat;  // mpirun: over the ranks
  if (!flags.tune_ops_file.empty()) {
    if (auto r = read_tune_ops_file(flags.tune_ops_file, o); !r) {
      io.err << "aoe: " << r.error().message << "\n";
      return exit_input;
    }
  }
  if (!common.output.empty()) o.tuned_model = std::filesystem::path(common.output);

  const int verbosity = common.verbosity();
  const bool bar = io.interactive && common.progress_bar == "on";
  o.on_event = [&](const aoe::OpatEvent& e) {
    if (e.kind == aoe::OpatEvent::Kind::finished && e.op != nullptr && e.op->failed()) {
      // Every failure reason reaches stderr, whatever --log says (exit 6 says why there).
      io.err << "aoe: operator " << e.op_name << " (" << e.op_type << ") failed: " << e.op->error
             << "\n";
    }
    if (bar) {
      const std::size_t done = e.index + (e.kind == aoe::OpatEvent::Kind::finished ? 1 : 0);
      draw_progress(io.out, done, e.count, e.op_type);
      return;
    }
    if (e.kind != aoe::OpatEvent::Kind::finished || verbosity < 2 || e.op == nullptr) return;
    io.out << "[" << (e.index + 1) << "/" << e.count << "] " << e.op_name << " (" << e.op_type
           << "): ";
    if (e.op->failed()) {
      io.out << "failed: " << e.op->error << std::endl;
      return;
    }
    for (const auto& k : e.op->kinds) {
      io.out << aoe::to_string(k.kind) << " " << aoe::to_string(k.outcome) << " "
             << fixed(k.before_us, 3) << " us -> " << fixed(k.after_us, 3) << " us";
      if (verbosity >= 3) io.out << " (" << e.op->evaluations << " evaluations)";
      io.out << "; ";
    }
    if (!e.op->note.empty()) io.out << e.op->note;
    io.out << std::endl;  // flushed: a pipe or a log file sees each operator as it ends
  };

  aoe::KnowledgeBank bank({.custom_root = env.op_bank_root(),
                           .builtin_root = env.builtin_bank_root(),
                           .access = bank_access(env, common, io)});
  const bool on_ascend = common.device == "ascend";
  if (verbosity >= 2) {
    io.out << "aoe: OPAT on " << graph->name << " (" << graph->nodes.size() << " nodes), "
           << (on_ascend ? std::string("Ascend NPU") : common.soc_version + " simulator")
           << ", search " << common.search << ", " << budget->evaluations
           << " evaluations per operator, bank " << env.op_bank_root().string() << "\n";
  }
  aoe::OpatJobResult partial;
  std::string catalogue;  // --device=ascend: the Ascend C kernel catalogue, AOE_ASCEND_KERNELS
  auto result = [&]() -> aoe::Result<aoe::OpatJobResult> {
#if defined(AOE_WITH_ASCEND)
    if (on_ascend) {
      if (io.getenv != nullptr) catalogue = (*io.getenv)("AOE_ASCEND_KERNELS").value_or("");
      return run_opat_on_ascend(*graph, bank, o, {.device_id = env.ascend_device_id},
                                io.getenv != nullptr ? *io.getenv : aoe::process_getenv(), io.out,
                                &partial);
    }
#endif
    return aoe::run_opat(*graph, backend, bank, o, &partial);
  }();
  if (bar) io.out << "\n";
  if (!result) {
    const auto& e = result.error();
    if (e.code == aoe::make_error_code(aoe::Errc::interrupted)) {
      io.err << "aoe: interrupted; " << partial.result_file.string()
             << " holds the operators tuned so far (tune tuning incomplete)\n";
      return exit_interrupted;
    }
    io.err << "aoe: " << e.message << "\n";
    if (on_ascend) {
      if (!catalogue.empty() && e.message.find(catalogue) != std::string::npos) return exit_input;
      if (e.code == aoe::make_error_code(aoe::Errc::busy) ||
          e.code == aoe::make_error_code(aoe::Errc::device_error) ||
          e.code.category() != aoe::make_error_code(aoe::Errc::busy).category()) {
        return exit_device;  // the NPU cannot be opened, is busy, or ACL failed
      }
    }
    return exit_bank;  // the model is loaded: what fails now is the bank or the work directory
  }
  const auto& rep = result->report;
  if (verbosity >= 1) {
    io.out << "aoe: " << rep.total() << " operators: " << rep.count(aoe::OpatOutcome::add)
           << " added, " << rep.count(aoe::OpatOutcome::update) << " updated, "
           << rep.count(aoe::OpatOutcome::hit) << " bank hits, "
           << rep.count(aoe::OpatOutcome::reserved) << " reserved, "
           << rep.count(aoe::OpatOutcome::unsatisfied) << " unsatisfied, "
           << rep.count(aoe::OpatOutcome::failed) << " failed; model "
           << fixed(rep.baseline_ms(), 3) << " ms -> " << fixed(rep.result_ms(), 3) << " ms\n";
    io.out << "aoe: result file " << result->result_file.string() << "\n";
    io.out << "aoe: tuned model " << result->tuned_model_file.string() << "\n";
  }
  if (const int code = write_opat_reports(common, *graph, rep, soc, result->result_file, io);
      code != exit_success) {
    return code;
  }
  io.out << rep.tuning_name << " process finished. Performance improved by "
         << fixed(aoe::OpatReport::improvement(rep.baseline_ms(), rep.result_ms()) * 100.0, 2)
         << "%\n";
  return rep.count(aoe::OpatOutcome::failed) > 0 ? exit_ops_failed : exit_success;
}

}  // namespace aoe_tool
