// `aoe`: AOE's jobs on a model — subgraph tuning (SGAT, --job_type=1), operator tuning (OPAT, 2)
// and gradient tuning (GDAT, 4) — on the simulator (OPAT also on an NPU, --device=ascend), with
// AOE's options, environment variables, banks and result files (docs/cli.md). SIGINT and SIGTERM
// end the job cleanly: the result file says "tune tuning incomplete" and keeps what was found.
#include "cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <exception>
#include <iostream>
#include <new>

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_signal(int /*signal*/) { stop_requested.store(true); }

}  // namespace

int main(int argc, char** argv) {
  // A closed standard descriptor would be reused by the next file opened (a bank file would
  // receive the report): each closed one is opened on /dev/null first. A closed stdout is then
  // refused (its report would be lost); a closed stderr or stdin is kept on /dev/null.
  bool stdout_closed = false;
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int null = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
      if (null != fd) return aoe_tool::exit_output;  // open() takes the lowest free descriptor
      stdout_closed = stdout_closed || fd == STDOUT_FILENO;
    }
  }
  if (stdout_closed) {
    std::cerr << "aoe: stdout is closed: nowhere to report the job (redirect it to a file or "
                 "/dev/null)\n";
    return aoe_tool::exit_output;
  }
  static_assert(std::atomic<bool>::is_always_lock_free,
                "the signal handler needs a lock-free flag");
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A reader that went away (`aoe ... | head`) makes the next write to stdout fail with EPIPE,
  // which the job reports as exit 8, instead of killing the process in the middle of a write.
  std::signal(SIGPIPE, SIG_IGN);
  // Whatever escapes the job (a bug, or memory exhausted) ends with a named reason and a
  // documented code instead of std::terminate's SIGABRT. Files are written atomically, so what
  // is on disk is the last complete version of each.
  try {
    return aoe_tool::run(argc, argv, aoe::process_getenv(), std::cout, std::cerr, &stop_requested,
                         ::isatty(STDOUT_FILENO) == 1);
  } catch (const std::bad_alloc&) {
    std::cerr << "aoe: out of memory (the job was ended; the bank and the result file keep "
                 "their last complete version)\n";
  } catch (const std::exception& e) {
    std::cerr << "aoe: internal error: " << e.what()
              << " (the job was ended; please report it with the command line)\n";
  }
  return aoe_tool::exit_internal;
}
