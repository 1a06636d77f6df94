// `aoe`: operator tuning (OPAT) of a model on the simulator, with AOE's options, environment
// variables, knowledge bank and result files (docs/cli.md). SIGINT and SIGTERM end the job
// cleanly: the result file says "tune tuning incomplete" and keeps what was found.
#include "cli.hpp"

#include <unistd.h>

#include <csignal>
#include <iostream>

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_signal(int /*signal*/) { stop_requested.store(true); }

}  // namespace

int main(int argc, char** argv) {
  static_assert(std::atomic<bool>::is_always_lock_free,
                "the signal handler needs a lock-free flag");
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return aoe_tool::run(argc, argv, aoe::process_getenv(), std::cout, std::cerr, &stop_requested,
                       ::isatty(STDOUT_FILENO) == 1);
}
