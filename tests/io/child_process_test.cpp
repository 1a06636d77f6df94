// aoe::detail::wait_child: a child that ends is reported as it ended; one that does not end in
// time is killed and reaped (the ONNX loader's guarded shape inference relies on it).
#include <aoe/io/child_process.hpp>

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>

namespace {

using aoe::detail::ChildEnd;
using namespace std::chrono_literals;

template <class Body>
pid_t spawn(Body body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  return pid;
}

}  // namespace

TEST_CASE("wait_child reports the exit status of a child that ends") {
  const pid_t pid = spawn([] { ::_exit(3); });
  const auto end = aoe::detail::wait_child(pid, 10s);
  REQUIRE(end.has_value());
  CHECK(end->how == ChildEnd::How::exited);
  CHECK(end->code == 3);
  CHECK_FALSE(end->succeeded());
  CHECK(end->describe(10s) == "exit status 3");
}

TEST_CASE("wait_child reports the signal that ended a child") {
  const pid_t pid = spawn([] {
    ::signal(SIGSEGV, SIG_DFL);
    ::raise(SIGSEGV);
  });
  const auto end = aoe::detail::wait_child(pid, 10s);
  REQUIRE(end.has_value());
  CHECK(end->how == ChildEnd::How::signaled);
  CHECK(end->code == SIGSEGV);
  CHECK(end->describe(10s).find("signal ") == 0);
}

TEST_CASE("wait_child kills and reaps a child that does not end in time") {
  const pid_t pid = spawn([] {
    for (;;) ::pause();
  });
  const auto end = aoe::detail::wait_child(pid, 200ms);
  REQUIRE(end.has_value());
  CHECK(end->how == ChildEnd::How::timed_out);
  CHECK(end->describe(200ms) == "no end within 200 ms (killed)");
  CHECK(end->describe(300s) == "no end within 300 s (killed)");
  // Reaped: no such child any more (not a zombie left behind).
  int status = 0;
  CHECK(::waitpid(pid, &status, WNOHANG) == -1);
  CHECK(errno == ECHILD);
}

TEST_CASE("wait_child on a pid that is not a child is an error naming it") {
  const auto end = aoe::detail::wait_child(::getpid(), 10ms);
  REQUIRE_FALSE(end.has_value());
  CHECK(end.error().message.find(std::to_string(::getpid())) != std::string::npos);
}
