// What every job command of `aoe` shares: the common flags (already validated by cli.cpp), the
// output streams and the stop flag. Each job (opat_command, sgat_command, gdat_command) adds its
// own flags to the CLI11 app and runs from these.
#ifndef AOE_TOOLS_AOE_COMMAND_HPP
#define AOE_TOOLS_AOE_COMMAND_HPP

#include "cli.hpp"
#include <aoe/config/environment.hpp>
#include <aoe/repo/bank_access.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace aoe_tool {

/// The flags every job takes (docs/cli.md), validated before a job runs.
struct CommonOptions {
  std::string model;
  int job_type = 0;
  std::string framework;    ///< 5/onnx or json; empty: the model file's content decides
  std::string input_shape;  ///< --input_shape (ONNX): "name:d0,d1,...;name2:..."
  std::string soc_version = "Ascend910A";
  std::string optimization_level = "O2";  ///< "O1" or "O2"
  std::string progress_bar = "on";        ///< "on" or "off"
  std::string output;                     ///< the tuned model's path; empty: the workspace
  std::string log = "info";               ///< "debug", "info", "warning", "error" or "null"
  std::string search = "evolutionary";
  std::size_t budget = 0;  ///< evaluations; 0: the level's preset (with early stop)
  std::uint64_t seed = 0;
  std::string device = "simulator";  ///< "simulator" or "ascend"
  std::string report = "on";   ///< --report: "on" writes the trace, op_summary and HTML report
  double measure_latency = 0;  ///< --measure_latency: seconds slept per simulated measurement

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

/// Draws a one-line progress bar "[=====     ] done/count label" (carriage return, no newline).
void draw_progress(std::ostream& out, std::size_t done, std::size_t count,
                   const std::string& label);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_COMMAND_HPP
