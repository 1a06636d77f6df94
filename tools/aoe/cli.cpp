// The `aoe` command's options and job dispatch (docs/cli.md).
#include "cli.hpp"

#include <aoe/graph/loader.hpp>
#include <aoe/jobs/opat_job.hpp>
#include <aoe/jobs/simulator_backend.hpp>
#include <aoe/measure/simulator/soc.hpp>
#include <aoe/repo/knowledge_bank.hpp>
#include <aoe/search/by_name.hpp>

#include <CLI/CLI.hpp>
#include <boost/json/parse.hpp>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace aoe_tool {

namespace {

struct Options {
  std::string model;
  int job_type = 0;
  std::string framework = "json";
  std::string soc_version = "Ascend910A";
  std::string tune_ops_file;
  bool fop_format = false;
  bool fop_impl = false;
  std::string optimization_level = "O2";
  std::string progress_bar = "on";
  std::string output;
  std::string log = "info";
  std::string search = "evolutionary";
  std::size_t budget = 0;
  std::uint64_t seed = 0;
  std::string device = "simulator";
};

aoe::Result<void> read_tune_ops_file(const std::string& path, aoe::OpatOptions& o) {
  std::ifstream in(path);
  if (!in) {
    return aoe::make_error(aoe::Errc::not_found,
                           "--tune_ops_file=" + path + ": cannot open the file");
  }
  std::ostringstream s;
  s << in.rdbuf();
  boost::system::error_code ec;
  const auto v = boost::json::parse(s.str(), ec);
  if (ec) {
    return aoe::make_error(aoe::Errc::parse_error,
                           path + ": expected well-formed JSON (" + ec.message() + ")");
  }
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

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

int run(int argc, const char* const* argv, const aoe::GetEnv& getenv, std::ostream& out,
        std::ostream& err, const std::atomic<bool>* stop, bool interactive) {
  Options opt;
  CLI::App app{
      "aoe: the Ascend Optimization Engine's operator tuning (OPAT), on the OpenAOE "
      "simulator. See docs/cli.md.",
      "aoe"};
  app.add_option("-m,--model", opt.model, "the model graph (JSON, docs/model_format.md)")
      ->required();
  app.add_option("-j,--job_type", opt.job_type,
                 "2: operator tuning (OPAT); 1 (SGAT) and 4 (GDAT) are not in this build")
      ->required();
  app.add_option("-f,--framework", opt.framework,
                 "the model's format: json (OpenAOE graph; the default)");
  app.add_option("--soc_version", opt.soc_version, "the SoC to tune for (default Ascend910A)");
  app.add_option("--tune_ops_file", opt.tune_ops_file,
                 "JSON {\"tune_ops_name\": [...], \"tune_ops_type\": [...]}: tune only these");
  app.add_flag("--Fop_format", opt.fop_format, "also tune the Format knowledge");
  app.add_flag("--Fop_impl", opt.fop_impl, "also tune the Impl knowledge (implementation mode)");
  app.add_option("--tune_optimization_level", opt.optimization_level,
                 "O2 (normal, default) or O1 (high performance: a larger budget)")
      ->check(CLI::IsMember({"O1", "O2"}));
  app.add_option("--progress_bar", opt.progress_bar, "on (default) or off")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--output", opt.output, "path of the tuned model (default in the workspace)");
  app.add_option("--log", opt.log, "debug, info (default), warning, error or null")
      ->check(CLI::IsMember({"debug", "info", "warning", "error", "null"}));
  std::string search_help = "search policy:";
  search_help += " evolutionary";
  for (const auto n : aoe::search_names()) {
    if (n != "evolutionary") search_help += " " + std::string(n);
  }
  app.add_option("--search", opt.search, search_help + " (default evolutionary)");
  app.add_option("--budget", opt.budget,
                 "evaluations per operator and knowledge kind, without early stop (default: "
                 "the level's preset, with early stop)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  app.add_option("--seed", opt.seed, "seed of the search policies (default 0)");
  app.add_option("--device", opt.device, "simulator (default) or ascend");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return exit_success;
  } catch (const CLI::ParseError& e) {
    err << "aoe: " << e.what() << "\n";
    return exit_usage;
  }

  if (opt.job_type == 1 || opt.job_type == 4) {
    err << "aoe: --job_type=" << opt.job_type << " ("
        << (opt.job_type == 1 ? "subgraph tuning, SGAT" : "gradient tuning, GDAT")
        << ") is not supported by this build yet; use --job_type=2 (operator tuning)\n";
    return exit_usage;
  }
  if (opt.job_type != 2) {
    err << "aoe: --job_type=" << opt.job_type
        << ": expected 1 (subgraph), 2 (operator) or 4 (gradient) tuning\n";
    return exit_usage;
  }
  if (opt.framework != "json") {
    err << "aoe: --framework=" << opt.framework
        << ": this build reads OpenAOE JSON graphs only (--framework=json); convert Caffe (0), "
           "MindSpore (1), TensorFlow (3) or ONNX (5) models to docs/model_format.md first\n";
    return exit_usage;
  }
  if (opt.device == "ascend") {
    err << "aoe: --device=ascend: this build has no Ascend runner (it was built without "
           "CANN/AscendCL); use --device=simulator\n";
    return exit_usage;
  }
  if (opt.device != "simulator") {
    err << "aoe: --device=" << opt.device << ": expected simulator or ascend\n";
    return exit_usage;
  }

  auto env = aoe::read_environment(getenv);
  if (!env) {
    err << "aoe: " << env.error().message << "\n";
    return exit_environment;
  }
  auto soc = aoe::sim::Soc::builtin(opt.soc_version);
  if (!soc) {
    err << "aoe: --soc_version=" << opt.soc_version << ": " << soc.error().message << "\n";
    return exit_usage;
  }
  if (auto s = aoe::make_opat_search(opt.search); !s) {
    err << "aoe: --search: " << s.error().message << "\n";
    return exit_usage;
  }
  auto budget = aoe::opat_budget_preset(opt.optimization_level);
  if (!budget) {
    err << "aoe: " << budget.error().message << "\n";
    return exit_usage;
  }
  if (opt.budget > 0) {
    budget->evaluations = opt.budget;  // exactly: no early stop before the budget
    budget->patience = opt.budget;
  }

  auto graph = aoe::load_graph(opt.model);
  if (!graph) {
    err << "aoe: " << graph.error().message << "\n";
    return exit_input;
  }

  aoe::SimulatorBackend backend(*soc);
  aoe::OpatOptions o{.scope = backend.scope(),
                     .search = opt.search,
                     .budget = *budget,
                     .seed = opt.seed,
                     .repeat_tune = env->repeat_tune,
                     .format_tuning = opt.fop_format,
                     .impl_tuning = opt.fop_impl,
                     .parallel = env->tuning_parallel_num,
                     .result_dir = env->work_path(),
                     .stop = stop};
  if (!opt.tune_ops_file.empty()) {
    if (auto r = read_tune_ops_file(opt.tune_ops_file, o); !r) {
      err << "aoe: " << r.error().message << "\n";
      return exit_input;
    }
  }
  if (!opt.output.empty()) o.tuned_model = std::filesystem::path(opt.output);

  const int verbosity = opt.log == "debug" ? 3 : opt.log == "info" ? 2 : opt.log == "null" ? 0 : 1;
  const bool bar = interactive && opt.progress_bar == "on";
  o.on_event = [&](const aoe::OpatEvent& e) {
    if (bar) {
      constexpr int width = 30;
      const std::size_t done = e.index + (e.kind == aoe::OpatEvent::Kind::finished ? 1 : 0);
      const int filled = static_cast<int>(width * done / std::max<std::size_t>(e.count, 1));
      out << "\r[" << std::string(static_cast<std::size_t>(filled), '=')
          << std::string(static_cast<std::size_t>(width - filled), ' ') << "] " << done << "/"
          << e.count << " " << e.op_type.substr(0, 40) << std::string(20, ' ') << std::flush;
      return;
    }
    if (e.kind != aoe::OpatEvent::Kind::finished || verbosity < 2 || e.op == nullptr) return;
    out << "[" << (e.index + 1) << "/" << e.count << "] " << e.op_name << " (" << e.op_type
        << "): ";
    if (e.op->failed()) {
      out << "failed: " << e.op->error << std::endl;
      return;
    }
    for (const auto& k : e.op->kinds) {
      out << aoe::to_string(k.kind) << " " << aoe::to_string(k.outcome) << " "
          << fixed(k.before_us, 3) << " us -> " << fixed(k.after_us, 3) << " us";
      if (verbosity >= 3) out << " (" << e.op->evaluations << " evaluations)";
      out << "; ";
    }
    out << std::endl;  // flushed: a pipe or a log file sees each operator as it ends
  };

  aoe::KnowledgeBank bank(
      {.custom_root = env->op_bank_root(), .builtin_root = env->builtin_bank_root()});
  if (verbosity >= 2) {
    out << "aoe: OPAT on " << graph->name << " (" << graph->nodes.size() << " nodes), "
        << opt.soc_version << " simulator, search " << opt.search << ", " << budget->evaluations
        << " evaluations per operator, bank " << env->op_bank_root().string() << "\n";
  }
  aoe::OpatJobResult partial;
  auto result = aoe::run_opat(*graph, backend, bank, o, &partial);
  if (bar) out << "\n";
  if (!result) {
    if (result.error().code == aoe::make_error_code(aoe::Errc::interrupted)) {
      err << "aoe: interrupted; " << partial.result_file.string()
          << " holds the operators tuned so far (tune tuning incomplete)\n";
      return exit_interrupted;
    }
    err << "aoe: " << result.error().message << "\n";
    return exit_bank;  // the model is loaded: what fails now is the bank or the work directory
  }
  const auto& rep = result->report;
  if (verbosity >= 1) {
    out << "aoe: " << rep.total() << " operators: " << rep.count(aoe::OpatOutcome::add)
        << " added, " << rep.count(aoe::OpatOutcome::update) << " updated, "
        << rep.count(aoe::OpatOutcome::hit) << " bank hits, "
        << rep.count(aoe::OpatOutcome::reserved) << " reserved, "
        << rep.count(aoe::OpatOutcome::unsatisfied) << " unsatisfied, "
        << rep.count(aoe::OpatOutcome::failed) << " failed; model " << fixed(rep.baseline_ms(), 3)
        << " ms -> " << fixed(rep.result_ms(), 3) << " ms\n";
    out << "aoe: result file " << result->result_file.string() << "\n";
    out << "aoe: tuned model " << result->tuned_model_file.string() << "\n";
  }
  out << rep.tuning_name << " process finished. Performance improved by "
      << fixed(aoe::OpatReport::improvement(rep.baseline_ms(), rep.result_ms()) * 100.0, 2)
      << "%\n";
  return rep.count(aoe::OpatOutcome::failed) > 0 ? exit_ops_failed : exit_success;
}

}  // namespace aoe_tool
