// Runs the built `aoe` as a process (fork, exec), for the tests that need a real one: a signal in
// the middle of a job, a pipe nobody reads, a resource limit. The binary: env AOE_BINARY, else
// the build's AOE_TOOL_AOE_PATH (defined for the tools' tests, cmake/AoeTesting.cmake).
#ifndef AOE_TESTS_SUPPORT_SPAWN_AOE_HPP
#define AOE_TESTS_SUPPORT_SPAWN_AOE_HPP

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace aoe::test {

/// The built `aoe`: env AOE_BINARY, else the build's path; empty when neither exists (the test
/// is then skipped).
inline std::string aoe_binary() {
  std::string binary;
  if (const char* b = std::getenv("AOE_BINARY")) binary = b;
#ifdef AOE_TOOL_AOE_PATH
  if (binary.empty()) binary = AOE_TOOL_AOE_PATH;
#endif
  return !binary.empty() && std::filesystem::exists(binary) ? binary : std::string();
}

/// How to start `aoe`.
struct AoeProcess {
  std::vector<std::string> args{};           ///< after the program name
  std::map<std::string, std::string> env{};  ///< set in the child, over the test's environment
  int stdout_fd = -1;                   ///< becomes the child's stdout (and is closed); -1: ours
  std::filesystem::path stderr_file{};  ///< the child's stderr; empty: ours
  std::function<void()> before_exec{};  ///< in the child, last (signals, limits, fds)
};

/// Starts `binary` as `p` says; returns the child's pid (-1 when fork fails). A child that
/// cannot exec exits with 127.
inline pid_t spawn_aoe(const std::string& binary, const AoeProcess& p) {
  const pid_t child = ::fork();
  if (child != 0) return child;
  if (p.stdout_fd >= 0) {
    ::dup2(p.stdout_fd, STDOUT_FILENO);
    if (p.stdout_fd > STDERR_FILENO) ::close(p.stdout_fd);
  }
  if (!p.stderr_file.empty()) {
    if (std::FILE* f = std::fopen(p.stderr_file.c_str(), "w")) ::dup2(::fileno(f), STDERR_FILENO);
  }
  for (const auto& [name, value] : p.env) ::setenv(name.c_str(), value.c_str(), 1);
  if (p.before_exec) p.before_exec();
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : p.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(binary.c_str(), argv.data());
  ::_exit(127);
}

/// Waits for `child`: its exit code, or minus the signal that ended it (never taken for an exit
/// code: a child killed by SIGINT is -2, one that exits 130 after SIGINT is 130).
inline int wait_aoe(pid_t child) {
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return -1000;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

}  // namespace aoe::test

#endif  // AOE_TESTS_SUPPORT_SPAWN_AOE_HPP
