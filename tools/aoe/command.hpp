// What every job command of `aoe` shares: the common flags (already validated by cli.cpp), the
// output streams and the stop flag, and the steps every job command takes around its job (the
// search and budget checks, the options taken from the flags and the environment, the end of a
// job that failed or finished: reports, last line, exit code). Each job (opat_command,
// sgat_command, gdat_command) adds its own flags to the CLI11 app and fills in only its job.
#ifndef AOE_TOOLS_AOE_COMMAND_HPP
#define AOE_TOOLS_AOE_COMMAND_HPP

#include "cli.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/core/error.hpp>
#include <aoe/jobs/job_skeleton.hpp>
#include <aoe/jobs/result_file.hpp>
#include <aoe/repo/bank_access.hpp>
#include <aoe/vocab/timing.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace CLI {
class App;
}

namespace aoe_tool {

/// One option of the `aoe` command as its flags are declared (cli.cpp and each job's own): the
/// flag ("-m,--model"), where its value goes, and its help.
struct OptionRow {
  const char* flag;
  std::variant<std::string*, int*, double*, std::optional<int>*, std::optional<double>*,
               std::optional<std::string>*>
      value;
  std::string help;
};

/// Adds the options of `rows` to `app`, in order.
void add_option_rows(CLI::App& app, std::initializer_list<OptionRow> rows);

/// The flags every job takes (docs/cli.md), validated before a job runs.
struct CommonOptions {
  std::string model;
  std::string model_path;  ///< --model_path: a directory of models (OPAT); empty: --model
  int job_type = 0;
  std::string framework;    ///< 5/onnx or json; empty: the model file's content decides
  std::string input_shape;  ///< --input_shape (ONNX): "name:d0,d1,...;name2:..."
  // Operator tuning of single operators and of shape profiles (shape_profiles.hpp, single_op.hpp).
  std::string singleop;            ///< --singleop: ATC's single-operator JSON, instead of --model
  std::string dynamic_batch_size;  ///< --dynamic_batch_size: "1,2,4,8" (the -1 of N)
  std::string dynamic_image_size;  ///< --dynamic_image_size: "h,w;h,w" (the -1 of H and W)
  std::string dynamic_dims;        ///< --dynamic_dims: "d0,d1;d0,d1" (every -1, in order)
  std::string soc_version = "Ascend910A";
  std::string optimization_level = "O2";  ///< "O1" or "O2"
  std::string progress_bar = "on";        ///< "on" or "off"
  std::string output;                     ///< the tuned model's path; empty: the workspace
  std::string log = "info";               ///< "debug", "info", "warning", "error" or "null"
  std::string
      search;  ///< empty: the job's default (check_job_flags: OPAT analytic, else evolutionary)
  std::size_t budget = 0;  ///< evaluations; 0: the level's preset (with early stop)
  std::uint64_t seed = 0;
  std::string device = "simulator";  ///< "simulator" or "ascend"
  std::string report = "on";   ///< --report: "on" writes the trace, op_summary and HTML report
  double measure_latency = 0;  ///< --measure_latency: seconds slept per simulated measurement
  /// --profiling_options: profiling's JSON; given, profiling is on and PROFILING_OPTIONS is not
  /// read (docs/cli.md#profiling).
  std::optional<std::string> profiling_options;

  /// Profiling as check_profiling resolved it (none: off): the options' JSON text and where it
  /// came from, the output directory and the device id of the file names.
  struct Profiling {
    std::string text;
    std::string source;
    std::filesystem::path output;
    int device = 0;
  };
  std::optional<Profiling> profiling;

  std::string aicore_num;  ///< --aicore_num as given (parsed by cli.cpp); empty: all cores

  /// --search, or `job_default` when it was not given (a caller that skipped check_job_flags).
  [[nodiscard]] std::string search_or(std::string_view job_default) const {
    return search.empty() ? std::string(job_default) : search;
  }

  /// A job's budget preset (any struct with `evaluations` and `patience`), overridden by
  /// --budget: then exactly that many evaluations, without early stop.
  template <class Budget>
  [[nodiscard]] Budget with_budget_flag(Budget preset) const {
    if (budget > 0) {
      preset.evaluations = budget;
      preset.patience = budget;
    }
    return preset;
  }

  /// 0 for --log=null, 1 for warning/error, 2 for info, 3 for debug.
  [[nodiscard]] int verbosity() const noexcept {
    if (log == "debug") return 3;
    if (log == "info") return 2;
    if (log == "null") return 0;
    return 1;
  }
};

/// Whether a job draws the progress bar: --progress_bar=on and stdout is a terminal.
[[nodiscard]] inline bool shows_progress_bar(const CommonOptions& common, bool interactive) {
  return interactive && common.progress_bar == "on";
}

struct JobExecutors;  // distributed.hpp: where the jobs run their tuning steps (mpirun)

/// Where a job writes: `out` the progress and the last line, `err` the errors. `stop` is set by
/// the signal handlers; `interactive` turns on the progress bar (stdout is a terminal);
/// `getenv` reads the environment (for what aoe::Environment does not hold).
struct Io {
  std::ostream& out;
  std::ostream& err;
  const std::atomic<bool>* stop = nullptr;
  bool interactive = false;
  const aoe::GetEnv* getenv = nullptr;
  const JobExecutors* executors = nullptr;  ///< under mpirun: over the ranks; null: in process
};

/// How a job shares its bank: TUNE_BANK_LOCK_TIMEOUT, and the bank's warnings (skipped
/// records, unreadable built-in files) on `io.err` as "aoe: warning: ..." unless --log=null.
[[nodiscard]] aoe::BankAccess bank_access(const aoe::Environment& env, const CommonOptions& common,
                                          const Io& io);

/// `v` with `digits` digits after the point ("3.533").
[[nodiscard]] std::string fixed(double v, int digits);

/// `text` as it is printed on the console: each control byte (below 0x20, and 0x7f) written as
/// `\xNN`, so that a NUL or an escape sequence in a model's or operator's name never reaches the
/// terminal raw (the JSON files escape them, file names are cleaned). `keep_lines`: newlines and
/// tabs stay (a message of several lines), otherwise they are escaped too (a name on one line).
/// Other bytes, UTF-8 included, are kept.
[[nodiscard]] std::string console_text(std::string_view text, bool keep_lines = false);

/// Draws a one-line progress bar "[=====     ] done/count label" (carriage return, no newline).
void draw_progress(std::ostream& out, std::size_t done, std::size_t count,
                   const std::string& label);

/// The budget of a job: `preset` (the job's --tune_optimization_level preset) with --budget
/// applied, once `search` (the job's policy made from --search) exists. An error is printed on
/// `io.err` and gives nothing: the command then exits with exit_usage.
template <class Search, class Budget>
[[nodiscard]] std::optional<Budget> job_budget(const aoe::Result<Search>& search,
                                               const aoe::Result<Budget>& preset,
                                               const CommonOptions& common, const Io& io) {
  if (!search) {
    io.err << "aoe: --search: " << search.error().message << "\n";
    return std::nullopt;
  }
  if (!preset) {
    io.err << "aoe: " << preset.error().message << "\n";
    return std::nullopt;
  }
  return common.with_budget_flag(*preset);
}

/// Fills in what every job's options take from the flags and the environment: the search, its
/// budget and seed, REPEAT_TUNE, the work directory (ASCEND_WORK_PATH) and the stop flag; in a
/// job that has them, TUNING_PARALLEL_NUM (`parallel`) and --output (`tuned_model`).
template <class JobOptions, class Budget>
void set_common_options(JobOptions& o, const Budget& budget, const CommonOptions& common,
                        const aoe::Environment& env, const Io& io) {
  if (!common.search.empty()) o.search = common.search;  // else the job's own default
  o.budget = budget;
  o.seed = common.seed;
  o.repeat_tune = env.repeat_tune;
  o.run.result_dir = env.work_path();
  o.run.stop = io.stop;
  if constexpr (requires { o.parallel; }) o.parallel = env.tuning_parallel_num;
  if constexpr (requires { o.tuned_model; }) {
    if (!common.output.empty()) o.tuned_model = std::filesystem::path(common.output);
  }
}

/// One task's event in a job that tunes tasks one after another (OPAT's operators, SGAT's
/// subgraphs), as the progress output shows it.
struct TaskEvent {
  std::size_t index = 0;               ///< of the task, from 0
  std::size_t count = 0;               ///< tasks in the job
  bool finished = false;               ///< the task ended (else it starts)
  std::string_view bar_label;          ///< beside the progress bar
  std::string what;                    ///< "operator", "subgraph": in a failure's message on stderr
  std::string name;                    ///< the task as its line names it: "fc/MatMul (MatMul)"
  const std::string* error = nullptr;  ///< the reason, when the finished task failed
};

/// The TaskEvent of a job's `event` (OPAT's OpatEvent, SGAT's SgatEvent): the report of the
/// task that finished (none when it starts), whose error is given when it failed.
template <class Report>
[[nodiscard]] TaskEvent task_event(const aoe::JobTaskEvent<Report>& event,
                                   std::string_view bar_label, std::string what, std::string name) {
  using Kind = typename aoe::JobTaskEvent<Report>::Kind;
  const Report* finished = event.kind == Kind::finished ? event.report : nullptr;
  return TaskEvent{.index = event.index,
                   .count = event.count,
                   .finished = finished != nullptr,
                   .bar_label = bar_label,
                   .what = std::move(what),
                   .name = std::move(name),
                   .error = finished != nullptr && finished->failed() ? &finished->error : nullptr};
}

/// The progress output every task shares: a failure goes to `io.err` ("aoe: <what> <name>
/// failed: <reason>", whatever --log says); with the progress bar (`bar`) the bar is drawn;
/// otherwise a finished task's line starts at --log=info or debug ("[i/n] <name>: ", and for a
/// failed task "failed: <reason>" and its end). True when the caller writes the rest of the
/// task's line and ends it (flushed: a pipe or a log file sees each task as it ends).
bool task_progress(const TaskEvent& e, bool bar, int verbosity, const Io& io);

/// The progress callback of a job that tunes tasks one after another (OPAT's operators, SGAT's
/// subgraphs) for its `Event`: `task(event)` says what the event is (`TaskEvent`), and
/// `line(event, verbosity)` writes the rest of a finished task's line (task_progress), which
/// then ends, flushed: a pipe or a log file sees each task as it ends.
template <class Event, class Task, class Line>
[[nodiscard]] std::function<void(const Event&)> task_progress_callback(const CommonOptions& common,
                                                                       const Io& io, Task task,
                                                                       Line line) {
  const int verbosity = common.verbosity();
  const bool bar = shows_progress_bar(common, io.interactive);
  return [&io, verbosity, bar, task, line](const Event& e) {
    if (!task_progress(task(e), bar, verbosity, io)) return;
    line(e, verbosity);
    io.out << std::endl;
  };
}

/// The exit code of a job that returned `error`: an interruption says on `io.err` that
/// `partial_file` holds `so_far` ("the operators tuned so far") and is exit_interrupted; any
/// other error is printed and is `code`.
[[nodiscard]] int job_failed(const aoe::ErrorInfo& error, const std::filesystem::path& partial_file,
                             std::string_view so_far, int code, const Io& io);

/// The repository summary of a job that tunes `total` tasks (`what`: "operators", "subgraphs")
/// and writes a tuned model: "aoe: N operators: A added, U updated, H bank hits, R reserved, S
/// unsatisfied, F failed; model B ms -> T ms", then where the result file and the tuned model are.
template <class Report>
void print_job_summary(const Io& io, std::size_t total, std::string_view what, const Report& r,
                       double before_ms, double after_ms, const std::filesystem::path& result_file,
                       const std::filesystem::path& tuned_model, const aoe::Timing& timing) {
  using O = aoe::JobOutcome;
  io.out << "aoe: " << total << " " << what << ": " << r.count(O::add) << " added, "
         << r.count(O::update) << " updated, " << r.count(O::hit) << " bank hits, "
         << r.count(O::reserved) << " reserved, " << r.count(O::unsatisfied) << " unsatisfied, "
         << r.count(O::failed) << " failed; model " << fixed(before_ms, 3) << " ms -> "
         << fixed(after_ms, 3) << " ms, " << timing.label() << "\n";
  io.out << "aoe: result file " << result_file.string() << "\n";
  io.out << "aoe: tuned model " << tuned_model.string() << "\n";
}

/// The end of a job that finished with `job_code` (exit_success, or exit_ops_failed when some
/// of its tasks failed): `reports` is what writing its --report files gave, then the last line
/// "<tuning_name> process finished. Performance improved by <improvement> (simulated)" (or
/// "(measured)": `timing`'s kind, docs/cli.md). Report files that
/// cannot be written are exit_bank after a successful job; after a job with a code of its own
/// they are a warning on `io.err`, and the job's code stands.
[[nodiscard]] int job_finished(const aoe::Result<void>& reports, const std::string& tuning_name,
                               const std::string& improvement, int job_code, const Io& io,
                               const aoe::Timing& timing);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_COMMAND_HPP
