// Waiting for a child process with a time limit: a child that does not end in time is killed
// (SIGKILL) and reaped, so that the caller never waits forever and leaves no zombie.
#ifndef AOE_IO_CHILD_PROCESS_HPP
#define AOE_IO_CHILD_PROCESS_HPP

#include "aoe/core/error.hpp"

#include <sys/types.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <string>
#include <thread>

namespace aoe::detail {

/// How a child process ended.
struct ChildEnd {
  enum class How { exited, signaled, timed_out };
  How how = How::exited;
  int code = 0;  ///< the exit status, or the signal's number (timed_out: 0)

  [[nodiscard]] bool succeeded() const noexcept { return how == How::exited && code == 0; }

  /// "exit status N", "signal Segmentation fault", "no end within 300 s (killed)".
  [[nodiscard]] std::string describe(std::chrono::milliseconds limit) const {
    switch (how) {
      case How::exited: return "exit status " + std::to_string(code);
      case How::signaled: return std::string("signal ") + ::strsignal(code);
      case How::timed_out: break;
    }
    const auto ms = limit.count();
    return "no end within " +
           (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") +
           " (killed)";
  }
};

/// Waits for `pid` at most `limit`; a child still running then is killed and reaped. Polls with
/// waitpid(WNOHANG), sleeping 1 ms at first and at most 50 ms between polls.
[[nodiscard]] inline Result<ChildEnd> wait_child(pid_t pid, std::chrono::milliseconds limit) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + limit;
  auto pause = std::chrono::milliseconds(1);
  const auto reap = [pid](int flags, int& status) {
    pid_t r = 0;
    do {
      r = ::waitpid(pid, &status, flags);
    } while (r < 0 && errno == EINTR);
    return r;
  };
  for (;;) {
    int status = 0;
    const pid_t r = reap(WNOHANG, status);
    if (r < 0) {
      return make_error(Errc::io_error, std::string("cannot wait for child process ") +
                                            std::to_string(pid) + ": " + std::strerror(errno));
    }
    if (r == pid) {
      if (WIFSIGNALED(status)) return ChildEnd{ChildEnd::How::signaled, WTERMSIG(status)};
      return ChildEnd{ChildEnd::How::exited, WEXITSTATUS(status)};
    }
    const auto now = clock::now();
    if (now >= deadline) {
      ::kill(pid, SIGKILL);
      (void)reap(0, status);
      return ChildEnd{ChildEnd::How::timed_out, 0};
    }
    std::this_thread::sleep_for(std::min<clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

}  // namespace aoe::detail

#endif  // AOE_IO_CHILD_PROCESS_HPP
