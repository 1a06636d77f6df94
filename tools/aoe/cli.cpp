// The `aoe` command's common options and job dispatch (docs/cli.md).
#include "cli.hpp"

#include "command.hpp"
#include "distributed.hpp"
#include "gdat_command.hpp"
#include "model_path.hpp"
#include "opat_command.hpp"
#include "reports.hpp"
#include "sgat_command.hpp"
#include "shape_profiles.hpp"
#include "single_op.hpp"
#include <aoe/config/aoe_ini.hpp>
#include <aoe/config/launcher.hpp>
#include <aoe/graph/input_shape.hpp>
#include <aoe/graph/model_format.hpp>
#include <aoe/io/read_input.hpp>
#include <aoe/measure/simulator/soc.hpp>
#include <aoe/search/search_names.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>

namespace aoe_tool {

aoe::BankAccess bank_access(const aoe::Environment& env, const CommonOptions& common,
                            const Io& io) {
  aoe::BankAccess access{.lock_timeout = std::chrono::seconds(env.bank_lock_timeout)};
  if (common.verbosity() >= 1) {
    std::ostream* err = &io.err;
    access.on_warning = [err](const std::string& message) {
      *err << "aoe: warning: " << message << "\n";
    };
  }
  return access;
}

void add_option_rows(CLI::App& app, std::initializer_list<OptionRow> rows) {
  for (const auto& row : rows) {
    std::visit([&](auto* value) { app.add_option(row.flag, *value, row.help); }, row.value);
  }
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string console_text(std::string_view text, bool keep_lines) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 0x20 && u != 0x7f) || (keep_lines && (c == '\n' || c == '\t'))) {
      out.push_back(c);
      continue;
    }
    out += "\\x";
    out.push_back(hex[u >> 4U]);
    out.push_back(hex[u & 15U]);
  }
  return out;
}

void draw_progress(std::ostream& out, std::size_t done, std::size_t count,
                   const std::string& label) {
  constexpr std::size_t width = 30;
  const std::size_t filled = std::min(width, width * done / std::max<std::size_t>(count, 1));
  out << "\r[" << std::string(filled, '=') << std::string(width - filled, ' ') << "] " << done
      << "/" << count << " " << label.substr(0, 40) << std::string(20, ' ') << std::flush;
}

namespace {

/// The flags of every job and of each job's own, on `app`; --seed is read as text
/// (`seed_text`) and parsed by parse_seed.
void add_options(CLI::App& app, CommonOptions& opt, OpatFlags& opat, SgatFlags& sgat,
                 GdatFlags& gdat, std::string& seed_text) {
  add_option_rows(
      app, {{"-m,--model", &opt.model,
             "the model: an ONNX model or an OpenAOE JSON graph (docs/model_format.md); GDAT: or a "
             "gradient profile (docs/gdat.md)"},
            {"--model_path", &opt.model_path,
             "operator tuning: every model (*.json, *.onnx) of this directory in one job, one "
             "bank, one result file (instead of --model)"},
            {"-j,--job_type", &opt.job_type,
             "1: subgraph tuning (SGAT), 2: operator tuning (OPAT), 4: gradient tuning (GDAT); "
             "default: AOE_MODE"},
            {"-f,--framework", &opt.framework,
             "the model's format: 5 (ONNX) or json (OpenAOE graph); default: the file's content "
             "decides"},
            {"--input_shape", &opt.input_shape,
             "ONNX: static sizes of the model's inputs, \"name:n,c,h,w;name2:...\"; -1 for a "
             "dimension the shape profiles fill (--dynamic_batch_size, --dynamic_image_size, "
             "--dynamic_dims)"},
            {"--soc_version", &opt.soc_version, "the SoC to tune for (default Ascend910A)"}});
  add_single_op_options(app, opt);
  add_shape_profile_options(app, opt);
  add_opat_options(app, opat);
  add_sgat_options(app, sgat);
  add_gdat_options(app, gdat);
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
  app.add_option("--search", opt.search,
                 search_help +
                     " (default: analytic for operator tuning, evolutionary for "
                     "subgraph and gradient tuning)");
  app.add_option("--budget", opt.budget,
                 "evaluations per operator and knowledge kind (OPAT), per subgraph (SGAT) or "
                 "split evaluations (GDAT), without early stop (default: the level's preset, with "
                 "early stop)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  add_option_rows(
      app,
      {{"--seed", &seed_text, "seed of the search policies, an integer in [0, 2^64-1] (default 0)"},
       {"--device", &opt.device, "simulator (default) or ascend"},
       {"--profiling_options", &opt.profiling_options,
        "profiling's JSON, as CANN's PROFILING_OPTIONS (output, training_trace, task_trace, "
        "hccl, aicpu, aic_metrics, fp_point, bp_point): writes msprof's files after the job "
        "(docs/reports.md#msprof-files); wins over PROFILING_MODE and PROFILING_OPTIONS"},
       {"--aicore_num", &opt.aicore_num,
        "operator tuning on the simulator: tune for N of the SoC's AI Cores (default: all)"},
       {"--measure_latency", &opt.measure_latency,
        "seconds slept per simulated measurement of operator tuning (--job_type=2), as a "
        "device's compile and run would take (docs/distributed.md); 0 to 3600 (default 0)"}});
  app.add_option("--report", opt.report,
                 "on (default): also write a trace, an op_summary CSV and an HTML report next to "
                 "the result file (docs/reports.md); off")
      ->check(CLI::IsMember({"on", "off"}));
}

/// --seed, an integer in [0, 2^64-1]: true when it is (or was not given).
bool parse_seed(const std::string& seed_text, CommonOptions& opt, std::ostream& err) {
  if (!seed_text.empty()) {
    // CLI11 would read "-1" as 2^64-1 (strtoull) and saturate overflow: parsed here instead.
    const char* last = seed_text.data() + seed_text.size();
    const auto [p, ec] = std::from_chars(seed_text.data(), last, opt.seed);
    if (ec != std::errc() || p != last) {
      err << "aoe: --seed=" << seed_text
          << ": expected an integer in [0, 18446744073709551615] (2^64-1)\n";
      return false;
    }
  }

  return true;
}

/// What the flags say before the environment is read: the launch (several MPI ranks need a
/// build with MPI) and --measure_latency. exit_success when all is well, else the exit code,
/// the reason on `err`.
int check_launch(const CommonOptions& opt, [[maybe_unused]] long ranks,
                 [[maybe_unused]] const std::string& launcher, std::ostream& err) {
#if !defined(AOE_WITH_MPI)
  // N copies of a job that is not distributed would fight over one bank and result file.
  if (ranks > 1) {
    err << "aoe: started as one of several MPI ranks (" << launcher
        << ", by mpirun or srun), but this aoe was built without MPI (aoe::mpi): each rank "
           "would run the whole job on the same knowledge bank and result file; run aoe as "
           "one process, or build it with Boost.MPI and Open MPI (docs/distributed.md)\n";
    return exit_usage;
  }
#endif
  if (!(opt.measure_latency >= 0 && opt.measure_latency <= 3600)) {
    err << "aoe: --measure_latency=" << opt.measure_latency << ": expected seconds in [0, 3600]\n";
    return exit_usage;
  }
  return exit_success;
}

/// --model_path as one of several MPI ranks: exit_usage (each rank reads --model; one process
/// tunes the models of a directory), else exit_success.
int check_model_path_ranks(const CommonOptions& opt, long ranks, std::ostream& err) {
  if (opt.model_path.empty() || ranks <= 1) return exit_success;
  err << "aoe: --model_path: runs in one process, not as several MPI ranks (each rank reads "
         "--model)\n";
  return exit_usage;
}

/// Operator tuning's own flags given to another job: exit_usage naming the flag; then
/// --objective and its flags (check_objective_flags); else exit_success.
int check_opat_only(const CommonOptions& opt, OpatFlags& opat, std::ostream& err) {
  if (!opt.model_path.empty()) {
    const char* why = opt.job_type != 2     ? "operator tuning (--job_type=2) only"
                      : !opt.model.empty()  ? "instead of --model, not with it"
                      : !opt.output.empty() ? "each model's tuned model goes to the workspace, "
                                              "--output names one"
                                            : nullptr;
    if (why != nullptr) {
      err << "aoe: --model_path: " << why << "\n";
      return exit_usage;
    }
  }
  if (opat.deeper_opat && opt.job_type != 2) {
    err << "aoe: --Fdeeper_opat: a deeper search of operator tuning (--job_type=2) only, as "
           "AOE's\n";
    return exit_usage;
  }
  return check_objective_flags(opt, opat, err);
}

/// The flags checked against each other and the environment (AOE_MODE gives the job type when
/// --job_type does not), then OPAT's own (check_opat_only): exit_success when all is well, else
/// the exit code, the reason on `err`.
int check_job_flags(CommonOptions& opt, OpatFlags& opat, const GdatFlags& gdat,
                    const aoe::Environment& env, std::ostream& err) {
  if (opt.job_type == 0) {
    if (!env.aoe_mode) {
      err << "aoe: --job_type is required (1 subgraph, 2 operator or 4 gradient tuning), or "
             "set AOE_MODE\n";
      return exit_usage;
    }
    opt.job_type = *env.aoe_mode;
  }
  if (opt.job_type != 1 && opt.job_type != 2 && opt.job_type != 4) {
    err << "aoe: --job_type=" << opt.job_type
        << ": expected 1 (subgraph), 2 (operator) or 4 (gradient) tuning\n";
    return exit_usage;
  }
  if (opt.model.empty() && opt.model_path.empty() && opt.singleop.empty() &&
      !(opt.job_type == 4 && !gdat.gradient_profile.empty())) {
    err << "aoe: --model is required (gradient tuning takes --gradient_profile instead)\n";
    return exit_usage;
  }
  if (auto f = aoe::model_format_from_framework(opt.framework, aoe::ModelFormat::json); !f) {
    err << "aoe: " << f.error().message << "\n";
    return exit_usage;
  }
  if (!opt.input_shape.empty()) {
    if (auto s = aoe::parse_input_shape(opt.input_shape, !profile_flag(opt).empty()); !s) {
      err << "aoe: " << s.error().message << "\n";
      return exit_usage;
    }
  }
  if (opt.device == "ascend") {
#if defined(AOE_WITH_ASCEND)
    if (opt.job_type != 2) {
      err << "aoe: --device=ascend: only operator tuning (--job_type=2) runs on the NPU; "
             "subgraph and gradient tuning score their strategies on the simulator\n";
      return exit_usage;
    }
#else
    err << "aoe: --device=ascend: this build has no Ascend runner; build on a machine with the "
           "CANN toolkit with cmake -DAOE_WITH_ASCEND=ON (docs/ascend.md), or use "
           "--device=simulator\n";
    return exit_usage;
#endif
  }
  if (opt.device != "simulator" && opt.device != "ascend") {  // ascend: checked above
    err << "aoe: --device=" << opt.device << ": expected simulator or ascend\n";
    return exit_usage;
  }
  // The default policy per job: "analytic" was measured better than "evolutionary" at every
  // budget for OPAT (docs/search.md#the-analytic-cost-model); SGAT and GDAT were not measured.
  if (opt.search.empty()) opt.search = opt.job_type == 2 ? "analytic" : "evolutionary";
  const auto names = aoe::search_names();
  if (std::find(names.begin(), names.end(), opt.search) == names.end()) {
    std::string known;
    for (const auto n : names) known += (known.empty() ? "" : ", ") + std::string(n);
    err << "aoe: --search=" << opt.search << ": expected one of " << known << "\n";
    return exit_usage;
  }
  return check_opat_only(opt, opat, err);
}

/// Where a setting of aoe.ini came from, for the --log=debug line.
const char* ini_source(bool in_file, bool in_environment) {
  if (in_environment) return "environment";
  return in_file ? "aoe.ini" : "default";
}

/// AOE's configuration file (docs/cli.md#aoeini): the first of aoe::aoe_ini_candidates that
/// exists is read and laid under the environment. exit_success when all is well (or there is
/// none); exit_usage when it cannot be read or holds a bad value, the message on `err` naming
/// the file, the line and the key.
int read_aoe_ini(aoe::Environment& env, const aoe::GetEnv& getenv, const CommonOptions& opt,
                 std::ostream& out, std::ostream& err) {
  for (const auto& file : aoe::aoe_ini_candidates(env)) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) continue;
    auto text = aoe::detail::read_input_file(
        file, "AOE's configuration file, KEY=VALUE lines, docs/cli.md#aoeini");
    if (!text) {
      err << "aoe: " << console_text(text.error().message, true) << "\n";
      return exit_usage;
    }
    auto ini = aoe::parse_aoe_ini(*text, file.string());
    const aoe::Result<void> applied =
        ini ? aoe::apply_aoe_ini(*ini, getenv, env) : aoe::Result<void>(ini.error());
    if (!applied) {
      err << "aoe: " << console_text(applied.error().message, true) << "\n";
      return exit_usage;
    }
    if (opt.verbosity() >= 1) {
      for (const auto& w : ini->warnings) err << "aoe: warning: " << console_text(w) << "\n";
    }
    if (opt.verbosity() >= 3) {
      const auto env_set = [&getenv](const char* name) {
        return !getenv(name).value_or("").empty();
      };
      out << "aoe: " << console_text(file.string())
          << ": TUNING_PARALLEL_NUM=" << env.tuning_parallel_num << " ("
          << ini_source(ini->tuning_parallel_num.has_value(), env_set("TUNING_PARALLEL_NUM"))
          << "), RUN_LOOP=" << (env.run_loop ? std::to_string(*env.run_loop) : std::string("unset"))
          << " (" << ini_source(ini->run_loop.has_value(), false) << "), work path "
          << console_text(env.work_path().string()) << " ("
          << ini_source(ini->work_path.has_value(), env.ascend_work_path.has_value()) << ")\n";
    }
    return exit_success;
  }
  return exit_success;
}

/// --aicore_num=N (docs/cli.md): `soc` with N of its AI Cores. exit_usage, the message naming
/// the flag, when N is not an integer in [1, the SoC's AI Cores] or the job is not operator
/// tuning on the simulator (the graph and gradient banks are not kept per core count).
int apply_aicore_num(const CommonOptions& opt, aoe::sim::Soc& soc, std::ostream& err) {
  if (opt.aicore_num.empty()) return exit_success;
  int n = 0;
  const char* last = opt.aicore_num.data() + opt.aicore_num.size();
  const auto [p, ec] = std::from_chars(opt.aicore_num.data(), last, n);
  if (ec != std::errc() || p != last || n < 1 || n > soc.cube_cores) {
    err << "aoe: --aicore_num=" << console_text(opt.aicore_num) << ": expected an integer in [1, "
        << soc.cube_cores << "] (the AI Cores of " << soc.name << ")\n";
    return exit_usage;
  }
  if (opt.job_type != 2 || opt.device != "simulator") {
    err << "aoe: --aicore_num: only operator tuning (--job_type=2) on the simulator "
           "(--device=simulator) tunes for fewer AI Cores; the NPU has the cores it has, and "
           "the subgraph and gradient banks are not kept per core count\n";
    return exit_usage;
  }
  soc = soc.with_ai_cores(n);
  return exit_success;
}

/// The SoC of --soc_version with --aicore_num applied; nothing (the reason on `err`) when
/// either is bad.
std::optional<aoe::sim::Soc> job_soc(const CommonOptions& opt, std::ostream& err) {
  auto soc = aoe::sim::Soc::builtin(opt.soc_version);
  if (!soc) {
    err << "aoe: --soc_version=" << opt.soc_version << ": " << soc.error().message << "\n";
    return std::nullopt;
  }
  if (apply_aicore_num(opt, *soc, err) != exit_success) return std::nullopt;
  return std::move(*soc);
}

/// `code`, once stdout took everything: /dev/full or a closed pipe lost the last line (the
/// result), which is exit_output unless an earlier failure has a code of its own.
int checked_stdout(std::ostream& out, std::ostream& err, int code) {
  out.flush();
  if (out) return code;
  err << "aoe: cannot write to stdout: the report printed there is incomplete (the result "
         "file is not affected)\n";
  return code == exit_success ? exit_output : code;
}

}  // namespace

int run(int argc, const char* const* argv, const aoe::GetEnv& getenv, std::ostream& out_arg,
        std::ostream& err_arg, const std::atomic<bool>* stop, bool interactive) {
  std::string launcher;
  const long ranks = aoe::launcher_ranks(getenv, &launcher);
  // Under mpirun only rank 0 speaks (the others would repeat each line).
  std::ostream discard(nullptr);
  const bool quiet = ranks > 1 && aoe::launcher_rank(getenv) > 0;
  std::ostream& out = quiet ? discard : out_arg;
  std::ostream& err = quiet ? discard : err_arg;
  CommonOptions opt;
  OpatFlags opat;
  SgatFlags sgat;
  GdatFlags gdat;
  std::string seed_text;
  CLI::App app{
      "aoe: the Ascend Optimization Engine's subgraph (SGAT), operator (OPAT) and gradient "
      "(GDAT) tuning, on the OpenAOE simulator. See docs/cli.md.",
      "aoe"};
  add_options(app, opt, opat, sgat, gdat, seed_text);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return exit_success;
  } catch (const CLI::ParseError& e) {
    err << "aoe: " << e.what() << "\n";
    return exit_usage;
  }
  if (!parse_seed(seed_text, opt, err)) return exit_usage;
  if (const int code = check_launch(opt, ranks, launcher, err); code != exit_success) return code;

  auto env = aoe::read_environment(getenv);
  if (!env) {
    err << "aoe: " << env.error().message << "\n";
    return exit_environment;
  }
  aoe::set_max_input_bytes(env->max_input_bytes.value_or(0));
  if (const int code = read_aoe_ini(*env, getenv, opt, out, err); code) return code;
  if (const int code = check_job_flags(opt, opat, gdat, *env, err); code != exit_success) {
    return code;
  }
  if (const int code = check_sgat_only(opt, sgat, err); code != exit_success) return code;
  for (const auto check : {check_single_op_flags, check_profile_flags, check_model_path_ranks}) {
    if (const int code = check(opt, ranks, err); code != exit_success) return code;
  }
  if (const int code = check_profiling(opt, *env, err); code != exit_success) return code;
  auto soc = job_soc(opt, err);
  if (!soc) return exit_usage;

  // --measure_latency slows down OPAT's simulated measurements; SGAT and GDAT score their
  // strategies without it, and the NPU takes its own time.
  if (opt.measure_latency > 0 && (opt.job_type != 2 || opt.device != "simulator") &&
      opt.verbosity() >= 1) {
    err << "aoe: warning: --measure_latency applies to operator tuning on the simulator "
           "(--job_type=2 --device=simulator) only; ignored here (docs/distributed.md)\n";
  }
  const Io io{.out = out, .err = err, .stop = stop, .interactive = interactive, .getenv = &getenv};
  const auto job = [&](const Io& job_io) {
    switch (opt.job_type) {
      case 1: return run_sgat_command(opt, sgat, *env, *soc, job_io);
      case 4: return run_gdat_command(opt, gdat, *env, *soc, job_io);
      default: return run_opat_job(opt, opat, *env, *soc, job_io);
    }
  };
  int code = exit_success;
#if defined(AOE_WITH_MPI)
  if (ranks > 1) {
    bool worker = false;
    code = run_ranks(opt, *soc, env->run_loop, io, job, worker);
    if (worker) return code;  // its output was discarded
  } else {
    code = job(io);
  }
#else
  code = job(io);
#endif
  return checked_stdout(out, err, code);
}

}  // namespace aoe_tool
