// aoe-bench: compares search policies on recorded tuning spaces (docs/research.md): a command
// over the experiment of aoe/experiment/ (inputs, repetitions, JSON, table, plot).
//
//   aoe-bench record --output FILE [--kernel gemm] [--size N] [--sample K] [--seed S]
//                                   (measures on an OpenCL device; record.hpp)
//   aoe-bench --input FILE... --strategy NAME[:KEY=VALUE...][,NAME...] --budget N
//             [--budget-seconds S]
//             --repeats R --seed S --json OUT [--plot OUT.svg] [--threads T]
//             [--start-from-default] [--cutoff P] [--cutoff-start P] [--cutoff-valid-only]
//             [--max-score-evaluations N] [--cartesian] [--transfer [--transfer-top K]]
//
// Under an MPI launcher (`mpirun -np N aoe-bench ...`, builds with aoe::mpi): the repetitions
// are spread over the ranks, rank 0 writes the JSON, plot and report (docs/distributed.md).
//
// Exit codes: 0 success; 1 internal error; 2 bad usage (flags, unknown strategy); 3 an input
// could not be read (missing, corrupt, wrong schema); 4 an output could not be written (checked
// before the experiment starts, and again when it is written).
#include "protocol.hpp"
#include "record.hpp"
#include "repetitions.hpp"
#include "report.hpp"
#include <aoe/config/launcher.hpp>
#include <aoe/core/error.hpp>
#include <aoe/experiment/json.hpp>
#include <aoe/experiment/methodology_files.hpp>
#include <aoe/experiment/problem.hpp>
#include <aoe/experiment/run.hpp>
#include <aoe/experiment/settings.hpp>
#include <aoe/experiment/simulator_problems.hpp>
#include <aoe/experiment/strategy.hpp>
#include <aoe/experiment/svg.hpp>
#include <aoe/experiment/table.hpp>
#include <aoe/search/search_names.hpp>
#include <aoe/vocab/objective.hpp>

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace {

namespace experiment = aoe::experiment;

constexpr int exit_ok = 0;
constexpr int exit_internal = 1;
constexpr int exit_usage = 2;
constexpr int exit_input = 3;
constexpr int exit_output = 4;

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (start <= item.size()) {
      const auto comma = item.find(',', start);
      const auto token =
          item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!token.empty()) out.push_back(token);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

// ---- The output paths, checked before the experiment -------------------------------------
// An experiment can take minutes: an output that cannot be written is found before it starts
// (exit 4), not after. A path is writable when it is not a directory and its directory takes a
// new file (the outputs are written as a temporary file renamed into place).

/// Why `path` cannot be written, or "" when it can; nothing is left behind.
std::string unwritable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return "it is a directory";
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
  if (!fs::is_directory(dir, ec)) return "the directory " + dir.string() + " does not exist";
  std::string probe = (dir / ".aoe-bench-write-check-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return "cannot create a file in " + dir.string() + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

/// Checks each output given (`flag`, `path`); prints the first that cannot be written.
bool outputs_writable(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (const auto& [flag, path] : outputs) {
    if (path.empty()) continue;
    if (const std::string why = unwritable(path); !why.empty()) {
      std::fprintf(stderr,
                   "aoe-bench: %s=%s: cannot be written: %s (checked before the experiment)\n",
                   flag.c_str(), path.c_str(), why.c_str());
      return false;
    }
  }
  return true;
}

/// The flags of an experiment run, as CLI11 fills them in.
struct Flags {
  std::vector<std::string> inputs;
  std::vector<std::string> strategies;
  experiment::Settings settings;
  double budget_seconds = 0;
  std::string json_path;
  std::string plot_path;
  std::string report_path;
  std::string methodology_dir;
  bool valid_only_cutoff = false;
  bool cartesian = false;
  bool traces = false;  ///< --traces: in the JSON
  std::size_t transfer_top = 2;
  std::string objective = "time";  ///< --objective
  std::string pick = "knee";       ///< --pareto-pick
  std::string protocol_path;       ///< --protocol: the tuning and held-out parts
  std::string datasets_dir;        ///< --datasets: where the protocol's files are
};

/// Every search policy's name, comma-separated (for the help and the errors).
std::string policy_names() {
  std::string names;
  for (const auto n : aoe::search_names()) names += (names.empty() ? "" : ", ") + std::string(n);
  return names;
}

/// What the experiment runs on: --input, or --protocol with --datasets.
void add_input_flags(CLI::App& app, Flags& f) {
  auto* input = app.add_option("--input", f.inputs,
                               "recorded spaces (Kernel Tuner cache or T4 results files, .json "
                               "or .json.gz) or simulator operators: sim:<workload>[@<SoC>]");
  auto* protocol = app.add_option(
      "--protocol", f.protocol_path,
      "instead of --input: a protocol file (bench/protocol.json) whose spaces, read from "
      "--datasets, are run as two parts: the tuning part and the held-out part (one kernel "
      "family and one device), each with its own table and JSON (docs/research.md)");
  auto* datasets = app.add_option("--datasets", f.datasets_dir,
                                  "with --protocol: the directory of its space files");
  input->excludes(protocol);
  protocol->needs(datasets);
  datasets->needs(protocol);
}

/// The experiment's flags on `app`, read into `f`.
void add_flags(CLI::App& app, Flags& f) {
  experiment::Settings& settings = f.settings;
  add_input_flags(app, f);
  app.add_option("--strategy", f.strategies,
                 "search policies, comma-separated, or all: " + policy_names() +
                     "; each may set options of annealing, evolutionary, bayesian or ensemble "
                     "as NAME:KEY=VALUE[:KEY=VALUE...], e.g. bayesian:initial_samples=5 (a "
                     "wrong key lists the valid ones; docs/search.md#settings-by-name)")
      ->required();
  app.add_option("--budget", settings.budget, "unique evaluations per repetition")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--budget-seconds", f.budget_seconds,
                 "also stop a repetition once it has been charged this many recorded device "
                 "seconds (compile + verification + benchmark time)")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeats", settings.repeats, "seeded repetitions per input and strategy")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", settings.seed, "seed; repetition r uses derive_seed(seed, r)")
      ->required();
  app.add_option("--json", f.json_path, "where to write the results (JSON)")->required();
  app.add_option("--plot", f.plot_path, "where to write an SVG plot of the curves");
  app.add_option("--report", f.report_path,
                 "where to write an HTML report: score table and curves (docs/reports.md)");
  app.add_option("--methodology", f.methodology_dir,
                 "where to write every repetition as the T4 results files the "
                 "autotuning-methodology package reads, and each input's full search space "
                 "(docs/research.md#scoring-with-autotuning-methodology)");
  app.add_option("--threads", settings.threads, "worker threads (default: every core)");
  app.add_option("--cutoff", settings.methodology.cutoff,
                 "methodology score: budget where random search closes this fraction of the "
                 "median-to-optimum gap (Willemsen et al. 2024: 0.96)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--cutoff-start", settings.methodology.cutoff_start,
                 "methodology score: averaged from where random search closes this fraction "
                 "(0.5)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_flag("--cutoff-valid-only", f.valid_only_cutoff,
               "methodology score: compute the budget over the valid configurations only, as the "
               "autotuning_methodology package does, instead of counting failed ones as draws");
  app.add_option("--max-score-evaluations", settings.max_score_evaluations,
                 "cap the evaluations the score averages over (0: none); the JSON's "
                 "score_evaluations shows the range used");
  app.add_flag("--start-from-default", settings.start_from_default,
               "annealing, evolutionary, bayesian and ensemble measure the input's default "
               "configuration first (a simulator operator's built-in heuristic; recorded spaces "
               "have none); grid and random search never do");
  app.add_flag("--cartesian", f.cartesian,
               "recorded spaces: search the Cartesian product of the recorded parameter values; "
               "configurations absent from the file fail (status constraints) and cost an "
               "evaluation, as in the TEVC 2022 benchmark (name suffix @cartesian)");
  app.add_flag("--transfer", settings.transfer,
               "transfer across devices, as aoe::Tuner does it: every policy first measures the "
               "best --transfer-top configurations of every other input with the same "
               "parameters (the same kernel on other devices; the input's own recording is left "
               "out), the sources ordered by weight (docs/transfer.md)");
  app.add_flag("--traces", f.traces,
               "keep every repetition's evaluations in the JSON (per strategy, \"traces\": "
               "values in order, null where it failed, device seconds charged, wall seconds of "
               "the run), for tools that score runs themselves (bench/peers)");
  app.add_option("--transfer-top", f.transfer_top,
                 "with --transfer: configurations taken from each other input (2)")
      ->check(CLI::PositiveNumber);
  app.add_option("--objective", f.objective,
                 "time (default: the fraction of the optimum) or pareto (also each front's "
                 "hypervolume over the recorded front's; every input needs recorded energy)");
  app.add_option("--pareto-pick", f.pick,
                 "with --objective pareto: the rule that picks the point in use: fastest, "
                 "least_energy or knee (default)");
  app.add_option("--power-cap", f.settings.objective.power_cap_watts,
                 "watts: configurations whose average power is above it are not eligible")
      ->check(CLI::NonNegativeNumber);
  app.footer(
      "Exit codes: 0 ok, 1 internal error, 2 bad usage, 3 unreadable input, 4 unwritable "
      "output. See docs/research.md.");
}

/// --objective and --pareto-pick into the settings; exit_usage, said (by rank 0: `speaks`), for
/// a name that is not one, or for energy and edp (TunerOptions' objectives: aoe-bench scores
/// time by the fraction of the optimum and pareto by hypervolume).
int read_objective(Flags& f, bool speaks) {
  auto kind = aoe::objective_kind_from(f.objective, "--objective");
  auto pick = aoe::front_pick_from(f.pick, "--pareto-pick");
  std::string why;
  if (!kind) why = kind.error().message;
  if (kind && (*kind == aoe::ObjectiveKind::energy || *kind == aoe::ObjectiveKind::edp)) {
    why = "--objective: '" + f.objective +
          "' is a TunerOptions objective; aoe-bench scores time (the fraction of the optimum) "
          "and pareto (hypervolume): expected time or pareto (docs/energy.md)";
  }
  if (why.empty() && !pick) why = pick.error().message;
  if (!why.empty()) {
    if (speaks) std::fprintf(stderr, "aoe-bench: %s\n", why.c_str());
    return exit_usage;
  }
  f.settings.objective.kind = *kind;
  f.settings.objective.pick = *pick;
  return exit_ok;
}

/// Under an MPI launcher: the repetitions spread over the ranks (`mpi`), or the exit code when
/// they cannot be (`record` under a launcher, a build without aoe::mpi); nothing otherwise.
std::optional<int> start_ranks(int argc, char** argv, bool record,
                               std::unique_ptr<aoe_bench::MpiRepetitions>& mpi) {
  // Started by an MPI launcher as one of several ranks: the repetitions are spread over them
  // (aoe::mpi); a build without it would run every repetition on every rank, each writing the
  // same files, so it stops.
  std::string launcher;
  if (aoe::launcher_ranks(aoe::process_getenv(), &launcher) <= 1) return std::nullopt;
  if (record) {
    std::fprintf(stderr,
                 "aoe-bench: record: started as one of several MPI ranks (%s, by mpirun or "
                 "srun): a recording is measured on one device by one process; run it "
                 "without the launcher\n",
                 launcher.c_str());
    return exit_usage;
  }
  mpi = aoe_bench::MpiRepetitions::start(argc, argv);
  if (mpi) return std::nullopt;
  std::fprintf(stderr,
               "aoe-bench: started as one of several MPI ranks (%s, by mpirun or srun), but "
               "this build has no MPI support (aoe::mpi: Boost.MPI and MPI were not found "
               "when it was configured): every rank would run every repetition and write "
               "the same files; run aoe-bench as one process, or rebuild with "
               "libboost-mpi1.81-dev and libopenmpi-dev (docs/distributed.md)\n",
               launcher.c_str());
  return exit_usage;
}

/// The strategies of --strategy ("all": every policy), each a known policy; an error is printed
/// (by rank 0: `speaks`) and gives nothing.
std::optional<std::vector<experiment::Strategy>> strategies_of(const std::vector<std::string>& args,
                                                               bool speaks) {
  auto names = split_commas(args);
  if (names.size() == 1 && names[0] == "all") {
    names.clear();
    for (const auto n : aoe::search_names()) names.emplace_back(n);
  }
  if (names.empty()) {
    if (speaks) {
      std::fprintf(stderr, "aoe-bench: --strategy: expected at least one of %s\n",
                   policy_names().c_str());
    }
    return std::nullopt;
  }
  auto strategies = experiment::named(names);
  if (!strategies) {
    if (speaks) {
      std::fprintf(stderr, "aoe-bench: --strategy: %s\n", strategies.error().message.c_str());
    }
    return std::nullopt;
  }
  return std::move(*strategies);
}

/// Reads every --input (a recorded space or `sim:` operators) into `problems`; exit_ok, or
/// exit_input with the reason printed (by rank 0: `speaks`).
int load_inputs(const Flags& f, bool speaks, std::vector<experiment::Problem>& problems) {
  for (const auto& input : f.inputs) {
    if (input.rfind("sim:", 0) == 0) {
      auto sims = experiment::load_simulator_problems(input);
      if (!sims) {
        if (speaks) std::fprintf(stderr, "aoe-bench: --input: %s\n", sims.error().what().c_str());
        return exit_input;
      }
      for (auto& p : *sims) problems.push_back(std::move(p));
      continue;
    }
    auto problem = experiment::load_problem(input, f.cartesian);
    if (!problem) {
      if (speaks) std::fprintf(stderr, "aoe-bench: --input: %s\n", problem.error().what().c_str());
      return exit_input;
    }
    problems.push_back(std::move(*problem));
  }
  return exit_ok;
}

/// --transfer: each input's starting points from the others; exit_ok, or exit_usage when no
/// input has another to transfer from (it would silently run without it).
int transfer_inputs(std::vector<experiment::Problem>& problems, std::size_t top) {
  experiment::add_transfer(problems, top);
  const bool any = std::any_of(problems.begin(), problems.end(),
                               [](const auto& p) { return !p.transfer_sources.empty(); });
  if (any) return exit_ok;
  std::fprintf(stderr,
               "aoe-bench: --transfer: no input has another recorded input with the same "
               "parameters to transfer from (%zu input(s)); pass two or more recordings of "
               "one kernel, e.g. convolution_milo_*.json.gz\n",
               problems.size());
  return exit_usage;
}

/// Progress on a terminal (stderr): repetitions done of total, elapsed, time left.
std::function<void(std::size_t, std::size_t)> terminal_progress() {
  const auto started = std::chrono::steady_clock::now();
  return [started, last = std::chrono::steady_clock::time_point{}](std::size_t done,
                                                                   std::size_t total) mutable {
    const auto now = std::chrono::steady_clock::now();
    if (done != total && now - last < std::chrono::milliseconds(200)) return;
    last = now;
    const double elapsed = std::chrono::duration<double>(now - started).count();
    const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
    std::fprintf(stderr,
                 "\raoe-bench: %zu/%zu repetitions, %.0f s elapsed, about %.0f s left\033[K", done,
                 total, elapsed, left);
    std::fflush(stderr);
  };
}

/// Writes the JSON and, when asked, the plot and the report; exit_ok, or exit_output naming
/// the flag whose file could not be written.
int write_outputs(const std::vector<experiment::ProblemResult>& results, const Flags& f) {
  const auto write = [](const char* flag, const std::string& path, const std::string& text) {
    if (path.empty()) return true;
    if (auto w = aoe_bench::write_file(path, text); !w) {
      std::fprintf(stderr, "aoe-bench: %s: %s\n", flag, w.error().what().c_str());
      return false;
    }
    return true;
  };
  // --methodology keeps the traces for its files; the JSON has them only with --traces.
  experiment::Settings shown = f.settings;
  shown.traces = f.traces;
  const std::string json = experiment::json_text(results, shown);
  if (!write("--json", f.json_path, json)) return exit_output;
  if (!f.plot_path.empty() &&
      !write("--plot", f.plot_path, experiment::to_svg(results, f.settings))) {
    return exit_output;
  }
  if (!f.report_path.empty() &&
      !write("--report", f.report_path, aoe_bench::to_html(results, f.settings))) {
    return exit_output;
  }
  if (!f.methodology_dir.empty()) {
    if (auto w = experiment::write_methodology_files(results, f.settings, f.methodology_dir); !w) {
      std::fprintf(stderr, "aoe-bench: --methodology: %s\n", w.error().what().c_str());
      return exit_output;
    }
  }
  return exit_ok;
}

// ---- --protocol: the tuning part and the held-out part ---------------------------------------

/// The protocol's spaces from --datasets, each with whether it is held out; exit_ok, or
/// exit_input naming the protocol or the space file that cannot be read.
int load_protocol(const Flags& f, bool speaks, aoe_bench::Protocol& protocol,
                  std::vector<experiment::Problem>& problems, std::vector<bool>& held) {
  auto read = aoe_bench::read_protocol(f.protocol_path);
  if (!read) {
    if (speaks) std::fprintf(stderr, "aoe-bench: %s\n", read.error().what().c_str());
    return exit_input;
  }
  protocol = std::move(*read);
  for (const auto& s : protocol.spaces) {
    const auto file = (std::filesystem::path(f.datasets_dir) / s.file).string();
    auto problem = experiment::load_problem(file, f.cartesian);
    if (!problem) {
      if (speaks) {
        std::fprintf(stderr, "aoe-bench: --protocol %s: space '%s': %s\n", f.protocol_path.c_str(),
                     s.file.c_str(), problem.error().what().c_str());
      }
      return exit_input;
    }
    problems.push_back(std::move(*problem));
    held.push_back(protocol.held_out(s));
  }
  return exit_ok;
}

/// One line per strategy: the part's mean fraction of the optimum at 25, 50, 100 (up to the
/// budget) and its mean score, each with the 95 % interval of the JSON's `summary`.
std::string part_summary(const boost::json::array& summary) {
  std::string out;
  const auto number = [](const boost::json::value& v) {
    return v.is_double() ? v.as_double() : std::numeric_limits<double>::quiet_NaN();
  };
  for (const auto& row : summary) {
    const auto& o = row.as_object();
    out += "  " + std::string(o.at("name").as_string()) + ":";
    const auto& fractions = o.at("fraction_of_optimum").as_object();
    const auto& ci = o.at("ci95").as_object().at("fraction_of_optimum").as_object();
    for (const char* k : {"25", "50", "100"}) {
      if (!fractions.contains(k)) continue;
      char text[96];
      const auto* interval = ci.if_contains(k);
      if (interval != nullptr && interval->is_array()) {
        std::snprintf(text, sizeof text, " f@%s %.3f [%.3f, %.3f]", k, number(fractions.at(k)),
                      number(interval->as_array()[0]), number(interval->as_array()[1]));
      } else {
        std::snprintf(text, sizeof text, " f@%s %.3f", k, number(fractions.at(k)));
      }
      out += text;
    }
    char score[48];
    std::snprintf(score, sizeof score, ", score %.3f\n", number(o.at("score")));
    out += score;
  }
  return out;
}

/// --protocol: both parts run with the same strategies, settings and seed; the JSON holds the
/// protocol and each part's experiment, the table each part's rows and summary.
int run_protocol(Flags& f, const std::vector<experiment::Strategy>& strategies, bool terminal,
                 bool speaks) {
  aoe_bench::Protocol protocol;
  std::vector<experiment::Problem> problems;
  std::vector<bool> held;
  if (const int code = load_protocol(f, speaks, protocol, problems, held); code != exit_ok) {
    return code;
  }
  if (f.settings.transfer) {
    if (const int code = transfer_inputs(problems, f.transfer_top); code != exit_ok) return code;
  }
  std::vector<experiment::Problem> parts[2];
  for (std::size_t i = 0; i < problems.size(); ++i) parts[held[i] ? 1 : 0].push_back(problems[i]);
  boost::json::object json;
  boost::json::object about;
  about["file"] = protocol.path;
  about["held_out_family"] = protocol.held_out_family;
  about["held_out_device"] = protocol.held_out_device;
  std::string text;
  experiment::Settings shown = f.settings;
  shown.traces = f.traces;
  for (int k = 0; k < 2; ++k) {
    const char* part = k == 0 ? "tuning" : "held_out";
    if (terminal) f.settings.on_progress = terminal_progress();
    auto results = experiment::run(parts[k], strategies, f.settings);
    if (terminal) std::fprintf(stderr, "\r\033[K");
    if (!results) {
      if (speaks) std::fprintf(stderr, "aoe-bench: %s\n", results.error().what().c_str());
      return exit_internal;
    }
    boost::json::array names;
    for (const auto& p : parts[k]) names.emplace_back(p.name);
    about[part] = std::move(names);
    auto part_json = experiment::to_json(*results, shown);
    text +=
        std::string(k == 0 ? "== tuning part" : "== held-out part (family ") +
        (k == 0 ? "" : protocol.held_out_family + ", device " + protocol.held_out_device + ")") +
        ": " + std::to_string(parts[k].size()) + " spaces\n" +
        experiment::table(*results, f.settings) + "mean over the part's spaces:\n" +
        part_summary(part_json.as_object().at("summary").as_array());
    json[part] = std::move(part_json);
  }
  json["protocol"] = std::move(about);
  if (!speaks) return exit_ok;
  if (auto w = aoe_bench::write_file(f.json_path, boost::json::serialize(json) + "\n"); !w) {
    std::fprintf(stderr, "aoe-bench: --json: %s\n", w.error().what().c_str());
    return exit_output;
  }
  std::fputs(text.c_str(), stdout);
  return exit_ok;
}

/// The experiment once the flags are read: inputs, repetitions, outputs, table.
int run(Flags& f, const std::vector<experiment::Strategy>& strategies,
        const aoe_bench::MpiRepetitions* mpi, bool speaks) {
  if (!f.protocol_path.empty()) {
    return run_protocol(f, strategies, mpi == nullptr && ::isatty(::fileno(stderr)) == 1, speaks);
  }
  std::vector<experiment::Problem> problems;
  if (const int code = load_inputs(f, speaks, problems); code != exit_ok) return code;
  if (f.settings.transfer) {
    if (const int code = transfer_inputs(problems, f.transfer_top); code != exit_ok) return code;
  }
  if (f.settings.objective.kind == aoe::ObjectiveKind::pareto) {
    for (const auto& p : problems) {
      if (!p.front.empty()) continue;
      if (speaks) {
        std::fprintf(stderr,
                     "aoe-bench: --objective pareto: --input %s: no recorded energy to score a "
                     "front against (a Kernel Tuner cache needs energy, nvml_energy or "
                     "ps_energy fields; docs/energy.md)\n",
                     p.source.c_str());
      }
      return exit_input;
    }
  }
  const bool terminal = mpi == nullptr && ::isatty(::fileno(stderr)) == 1;
  if (terminal) f.settings.on_progress = terminal_progress();
  auto results = experiment::run(problems, strategies, f.settings);
  if (terminal) std::fprintf(stderr, "\r\033[K");
  if (!results) {
    if (speaks) std::fprintf(stderr, "aoe-bench: %s\n", results.error().what().c_str());
    return exit_internal;
  }
  if (!speaks) return exit_ok;  // a worker rank: rank 0 writes and prints
  if (const int code = write_outputs(*results, f); code != exit_ok) return code;
  std::fputs(experiment::table(*results, f.settings).c_str(), stdout);
  return exit_ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool record = argc > 1 && std::string_view(argv[1]) == "record";
  std::unique_ptr<aoe_bench::MpiRepetitions> mpi;
  if (const auto code = start_ranks(argc, argv, record, mpi)) return *code;
  // Rank 0 alone reports what every rank finds alike (a bad input, a bad flag).
  const bool speaks = !mpi || mpi->rank() == 0;
  // aoe-bench record ...: measure once on an OpenCL device (record.hpp).
  if (record) return aoe_bench::record_main(argc - 1, argv + 1);
  CLI::App app{"aoe-bench: compare search policies on recorded tuning spaces"};
  Flags f;
  add_flags(app, f);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = speaks ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 1);
    return code == 0 ? exit_ok : exit_usage;
  }
  if (f.inputs.empty() == f.protocol_path.empty()) {
    if (speaks) std::fprintf(stderr, "aoe-bench: expected --input or --protocol (one of them)\n");
    return exit_usage;
  }
  if (!f.protocol_path.empty() &&
      !(f.plot_path.empty() && f.report_path.empty() && f.methodology_dir.empty())) {
    if (speaks) {
      std::fprintf(stderr,
                   "aoe-bench: --protocol: --plot, --report and --methodology take one "
                   "experiment; run the part's spaces with --input for them\n");
    }
    return exit_usage;
  }
  if (mpi) f.settings.run_repetitions = mpi->runner();
  if (f.budget_seconds > 0) f.settings.budget_seconds = f.budget_seconds;
  f.settings.methodology.count_failures = !f.valid_only_cutoff;
  f.settings.traces = f.traces || !f.methodology_dir.empty();
  if (const int code = read_objective(f, speaks); code != exit_ok) return code;
  const auto strategies = strategies_of(f.strategies, speaks);
  if (!strategies) return exit_usage;
  if (!outputs_writable(
          {{"--json", f.json_path}, {"--plot", f.plot_path}, {"--report", f.report_path}})) {
    return exit_output;
  }
  try {
    return run(f, *strategies, mpi.get(), speaks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aoe-bench: internal error: %s\n", e.what());
    return exit_internal;
  }
}
