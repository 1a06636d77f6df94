// The job driver (jobs/job_driver.hpp) with a schedule of the test's own: the order of its
// steps, the result file's writes, where it looks at the stop flag, and what an error or an
// interruption leaves.
#include "support/temp_dir.hpp"
#include <aoe/jobs/job_driver.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jobs_job_driver_test {  // apart from this area's other files in a unity build

/// What JobFrame needs of a report, and a result file that counts its writes.
struct Report {
  std::string tuning_name;
  std::string timestamp;
  long tid = 0;
  double tuning_seconds = 0;
  bool finished = false;
  bool interrupted = false;
  std::vector<std::string> log;  ///< the schedule's steps and the file's writes, in order
  int writes = 0;
};

aoe::Result<void> write_report(Report& report, const std::filesystem::path& file, bool durable) {
  ++report.writes;
  report.log.push_back(durable ? "write durable" : "write");
  aoe::test::write_text(file, report.finished ? "finished" : "running");
  return {};
}

struct Output : aoe::JobResult<Report> {};

/// `tasks` tasks; each asks for a rewrite when `rewrite` says so; task `stop_at` sets the stop
/// flag while it runs; task `cut` is interrupted.
template <bool LateStopInterrupts>
struct Schedule {
  using Output = jobs_job_driver_test::Output;
  static constexpr std::string_view job = "test";
  static constexpr bool late_stop_interrupts = LateStopInterrupts;

  std::size_t tasks = 3;
  std::vector<bool> rewrite = {true, false, true};
  std::size_t every = 1;  ///< stop points: tasks 0, every, 2 * every, ...
  std::atomic<bool>* stop = nullptr;
  std::size_t stop_at = 99;
  std::size_t cut = 99;
  bool fail_check = false;

  [[nodiscard]] std::string name() const { return "model"; }
  [[nodiscard]] aoe::Result<void> check() {
    if (fail_check) return aoe::make_error(aoe::Errc::io_error, "the bank is read-only");
    return {};
  }
  [[nodiscard]] aoe::Result<std::size_t> prepare(Output& out) {
    out.report.log.push_back("prepare");
    return tasks;
  }
  [[nodiscard]] bool stop_point(std::size_t t) const { return t % every == 0; }
  [[nodiscard]] aoe::Result<aoe::TaskDone> run_task(std::size_t t, Output& out) {
    out.report.log.push_back("task " + std::to_string(t));
    if (t == stop_at) stop->store(true);
    return aoe::TaskDone{rewrite[t], t == cut};
  }
  void finished(std::size_t t, Output& out) {
    out.report.log.push_back("finished " + std::to_string(t));
  }
  [[nodiscard]] aoe::Result<void> write_model(Output& out) {
    out.report.log.push_back("model");
    return {};
  }
};

using Log = std::vector<std::string>;

TEST_CASE(
    "run_job: prepare, first write, the tasks with a rewrite where asked, the durable "
    "write, the model") {
  static_assert(aoe::job_schedule<Schedule<true>>);
  const aoe::test::TempDir dir("job_driver");
  Schedule<true> s;
  const auto out = aoe::run_job(s, dir.path(), nullptr, nullptr);
  REQUIRE(out.has_value());
  CHECK(out->report.log == Log{"prepare", "write", "task 0", "write", "finished 0", "task 1",
                               "finished 1", "task 2", "write", "finished 2", "write durable",
                               "model"});
  CHECK(out->report.tuning_name == "model");
  CHECK(out->report.finished);
  CHECK_FALSE(out->report.interrupted);
  CHECK(out->result_file.parent_path() == dir.path());
  CHECK(out->result_file.filename().string().starts_with("aoe_result_test_"));
  CHECK(aoe::test::read_text(out->result_file) == "finished");
}

TEST_CASE("run_job: a failed check ends the job before any work and writes nothing") {
  const aoe::test::TempDir dir("job_driver");
  Schedule<true> s;
  s.fail_check = true;
  const auto out = aoe::run_job(s, dir.path(), nullptr, nullptr);
  REQUIRE_FALSE(out.has_value());
  CHECK(out.error().message == "the bank is read-only");
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("run_job: the stop flag is looked at on the schedule's stop points only") {
  const aoe::test::TempDir dir("job_driver");
  std::atomic<bool> stop{false};
  Schedule<true> s;
  s.tasks = 4;
  s.rewrite = {false, false, false, false};
  s.every = 2;  // stop points before tasks 0 and 2, as SGAT's waves
  s.stop = &stop;
  s.stop_at = 0;
  Output partial;
  const auto out = aoe::run_job(s, dir.path(), &stop, &partial);
  REQUIRE_FALSE(out.has_value());
  CHECK(out.error().code == aoe::make_error_code(aoe::Errc::interrupted));
  // Task 1 runs although the flag is set (no stop point before it); no model is written.
  CHECK(partial.report.log ==
        Log{"prepare", "write", "task 0", "finished 0", "task 1", "finished 1", "write durable"});
  CHECK(partial.report.interrupted);
  CHECK(partial.report.finished);
}

TEST_CASE("run_job: an interrupted task ends the job at once, unannounced") {
  const aoe::test::TempDir dir("job_driver");
  Schedule<false> s;
  s.cut = 1;
  Output partial;
  const auto out = aoe::run_job(s, dir.path(), nullptr, &partial);
  REQUIRE_FALSE(out.has_value());
  CHECK(out.error().code == aoe::make_error_code(aoe::Errc::interrupted));
  CHECK(partial.report.log ==
        Log{"prepare", "write", "task 0", "write", "finished 0", "task 1", "write durable"});
}

TEST_CASE("run_job: a stop after the last stop point interrupts only a schedule that says so") {
  const aoe::test::TempDir dir("job_driver");
  std::atomic<bool> stop{false};
  SUBCASE("late_stop_interrupts (OPAT, SGAT)") {
    Schedule<true> s;
    s.stop = &stop;
    s.stop_at = 2;
    const auto out = aoe::run_job(s, dir.path(), &stop, nullptr);
    REQUIRE_FALSE(out.has_value());
    CHECK(out.error().code == aoe::make_error_code(aoe::Errc::interrupted));
  }
  SUBCASE("not (GDAT: only a search cut short counts)") {
    Schedule<false> s;
    s.stop = &stop;
    s.stop_at = 2;
    const auto out = aoe::run_job(s, dir.path(), &stop, nullptr);
    REQUIRE(out.has_value());
    CHECK_FALSE(out->report.interrupted);
    CHECK(out->report.log.back() == "model");
  }
}

}  // namespace jobs_job_driver_test
