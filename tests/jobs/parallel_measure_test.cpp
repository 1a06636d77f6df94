// ParallelMeasure (TUNING_PARALLEL_NUM threads): a runner that throws for one configuration, in
// any thread, gives that configuration a failed measurement with the exception's message; the
// rest of the batch is measured, in batch order, and the process goes on. A system that refuses
// the worker threads leaves the pool with fewer (the same results), never a hang.
#include "support/skip.hpp"
#include <aoe/jobs/parallel_measure.hpp>

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace jobs_parallel_measure_test {  // apart from this area's other files in a unity build

namespace {

/// Times a configuration by its first index; throws for multiples of 3 (and a non-standard
/// exception for 4).
struct ThrowingRunner {
  [[nodiscard]] aoe::Measurement evaluate(const aoe::Configuration& c) const {
    if (c[0] == 4) throw 42;  // NOLINT(hicpp-exception-baseclass): what a careless runner does
    if (c[0] % 3 == 0) throw std::runtime_error("no kernel for tile " + std::to_string(c[0]));
    return aoe::Measurement::success(static_cast<double>(c[0]));
  }
};

}  // namespace

TEST_CASE("parallel measure: an exception in a worker is that configuration's failure") {
  const aoe::Space space({aoe::range("tile", 0, 15)});
  const ThrowingRunner runner;
  std::vector<aoe::Configuration> batch;
  for (std::uint32_t i = 0; i < 16; ++i) batch.push_back({i});
  for (const int threads : {1, 4}) {
    CAPTURE(threads);
    aoe::ParallelMeasure<ThrowingRunner> measure(runner, threads);
    for (int round = 0; round < 3; ++round) {  // the pool stays usable after a throw
      const auto out = measure.measure(aoe::SpaceView(space), batch);
      REQUIRE(out.size() == batch.size());
      for (std::uint32_t i = 0; i < 16; ++i) {
        CAPTURE(i);
        if (i == 4) {
          CHECK(out[i].status == aoe::Status::runtime);
          CHECK(out[i].message.find("not a std::exception") != std::string::npos);
        } else if (i % 3 == 0) {
          CHECK(out[i].status == aoe::Status::runtime);
          CHECK(out[i].message == "the runner threw: no kernel for tile " + std::to_string(i));
        } else {
          CHECK(out[i].ok());
          CHECK(out[i].value == static_cast<double>(i));
        }
      }
    }
  }
}

TEST_CASE("parallel measure: threads the system refuses leave fewer workers, never a hang") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  aoe::test::skip("a sanitizer's own mappings do not fit under an address-space limit");
  return;
#else
  const aoe::Space space({aoe::range("tile", 0, 15)});
  const ThrowingRunner runner;
  std::vector<aoe::Configuration> batch;
  for (std::uint32_t i = 0; i < 16; ++i) {
    if (i % 3 != 0 && i != 4) batch.push_back({i});  // none throws
  }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The address space as it is plus 3 MiB: a thread's 8 MiB stack no longer fits, so
    // std::jthread throws std::system_error. Before the fix the constructor's unwinding
    // joined the workers already started, which waited for a wake-up that never came.
    ::alarm(30);  // a hang ends the child with SIGALRM
    long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    if (pages <= 0) ::_exit(3);
    const rlim_t now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    const rlimit limit{now + (rlim_t{3} << 20U), RLIM_INFINITY};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(4);
    try {
      aoe::ParallelMeasure<ThrowingRunner> measure(runner, 8);
      const auto out = measure.measure(aoe::SpaceView(space), batch);
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (!out[i].ok() || out[i].value != static_cast<double>(batch[i][0])) ::_exit(1);
      }
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  REQUIRE(WIFEXITED(status));  // not killed by the alarm: no hang
  CHECK(WEXITSTATUS(status) == 0);
#endif
}

}  // namespace jobs_parallel_measure_test
