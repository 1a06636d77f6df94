// The `aoe` command: AOE's options (docs/cli.md), parsed with CLI11, running the job --job_type
// (or AOE_MODE) names: SGAT (1), OPAT (2) or GDAT (4). Split from main.cpp so tests/tools can run
// it in-process.
#ifndef AOE_TOOLS_AOE_CLI_HPP
#define AOE_TOOLS_AOE_CLI_HPP

#include <aoe/config/environment.hpp>

#include <atomic>
#include <iosfwd>

namespace aoe_tool {

/// Exit codes of `aoe` (docs/cli.md#exit-codes).
enum ExitCode : int {
  exit_success = 0,        ///< the job finished: "tuning successful"
  exit_usage = 2,          ///< a bad option, or a job type/framework/device this build lacks
  exit_input = 3,          ///< the model or --tune_ops_file is unreadable, malformed or dynamic
  exit_environment = 4,    ///< an environment variable is invalid
  exit_bank = 5,           ///< the knowledge bank or work directory cannot be read or written
  exit_ops_failed = 6,     ///< the job finished but some operators failed ("tuning failed")
  exit_device = 7,         ///< --device=ascend: the NPU cannot be opened or is busy
  exit_output = 8,         ///< stdout cannot be written (full, closed): the report is lost
  exit_internal = 9,       ///< out of memory, or an internal error (a bug): the reason on stderr
  exit_interrupted = 130,  ///< SIGINT/SIGTERM: ended cleanly, "tune tuning incomplete"
};

/// Runs `aoe` with these arguments; `out` gets the progress and the last line, `err` the
/// errors (every failure reason, whatever --log says). A failed write to `out` is exit_output.
/// `stop` is the flag the signal handlers set. `interactive` turns on the progress bar (a
/// terminal).
int run(int argc, const char* const* argv, const aoe::GetEnv& getenv, std::ostream& out,
        std::ostream& err, const std::atomic<bool>* stop, bool interactive);

}  // namespace aoe_tool

#endif  // AOE_TOOLS_AOE_CLI_HPP
