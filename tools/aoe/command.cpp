// The end of every job command: see command.hpp.
#include "command.hpp"

#include <ostream>

namespace aoe_tool {

bool task_progress(const TaskEvent& e, bool bar, int verbosity, const Io& io) {
  if (e.finished && e.error != nullptr) {
    // Every failure reason reaches stderr, whatever --log says (exit 6 says why there).
    io.err << "aoe: " << e.what << " " << console_text(e.name)
           << " failed: " << console_text(*e.error, true) << "\n";
  }
  if (bar) {
    draw_progress(io.out, e.index + (e.finished ? 1 : 0), e.count, console_text(e.bar_label));
    return false;
  }
  if (!e.finished || verbosity < 2) return false;
  io.out << "[" << (e.index + 1) << "/" << e.count << "] " << console_text(e.name) << ": ";
  if (e.error != nullptr) {
    io.out << "failed: " << console_text(*e.error, true) << std::endl;
    return false;
  }
  return true;
}

int job_failed(const aoe::ErrorInfo& error, const std::filesystem::path& partial_file,
               std::string_view so_far, int code, const Io& io) {
  if (error.code == aoe::make_error_code(aoe::Errc::interrupted)) {
    io.err << "aoe: interrupted; " << partial_file.string() << " holds " << so_far
           << " (tune tuning incomplete)\n";
    return exit_interrupted;
  }
  io.err << "aoe: " << console_text(error.message, true) << "\n";
  return code;
}

int job_finished(const aoe::Result<void>& reports, const std::string& tuning_name,
                 const std::string& improvement, int job_code, const Io& io,
                 const aoe::Timing& timing) {
  if (!reports) {
    if (job_code == exit_success) {
      io.err << "aoe: --report: " << reports.error().message << "\n";
      return exit_bank;
    }
    // The job's own code (some tasks failed) says more than the reports' failure.
    io.err << "aoe: warning: --report: " << reports.error().message << "\n";
  }
  io.out << console_text(tuning_name) << " process finished. Performance improved by "
         << improvement << " (" << aoe::to_string(timing.kind) << ")\n";
  return job_code;
}

}  // namespace aoe_tool
