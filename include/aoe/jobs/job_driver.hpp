// One driver for AOE's three jobs. Every job has the same frame: the result file named and
// stamped, the checks that end a job before any work, the first write, the tasks in order with
// the result file rewritten after each one that tuned or failed, the stop flag looked at
// between tasks, the last, durable write (interrupted or not) and the tuned model. The jobs
// differ only in their schedule, the policy `run_job` runs: which tasks there are and how one is
// tuned and accounted (OPAT: a pipeline of operators; SGAT: waves of subgraphs; GDAT: one
// search; job_skeleton.hpp says how each keeps its outputs independent of the ranks).
#ifndef AOE_JOBS_JOB_DRIVER_HPP
#define AOE_JOBS_JOB_DRIVER_HPP

#include "aoe/core/error.hpp"
#include "aoe/jobs/job_skeleton.hpp"

#include <atomic>
#include <concepts>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace aoe {

/// What one task of a schedule did.
struct TaskDone {
  bool rewrite = false;      ///< rewrite the result file now (the task tuned, or failed)
  bool interrupted = false;  ///< the stop flag cut the task short: the job ends after it
};

/// A job's schedule, the policy `run_job` runs:
///  - `Output`: what the job returns, a `JobResult<Report>` (with its tuned model's path where
///    the job writes one);
///  - `job`: "opat", "sgat" or "gdat", as the result file's name says it;
///  - `late_stop_interrupts`: a stop flag set after the last look counts as an interruption
///    (OPAT, SGAT); false when only a task cut short does (GDAT, whose search watches the flag);
///  - `name()`: the model's name, the report's `tuning_name`;
///  - `check()`: what must hold before any work, once the result file is named (the bank
///    writable, the search policy known): its error ends the job;
///  - `prepare(out)`: the tasks, in order (it returns how many) and the report's fixed part;
///  - `stop_point(t)`: whether the stop flag is looked at before task t (OPAT: before every
///    operator; SGAT: before every wave; GDAT: never, its search looks);
///  - `run_task(t, out)`: tunes and accounts task t;
///  - `finished(t, out)`: task t is accounted and the result file rewritten if it asked for that
///    (the progress event);
///  - `write_model(out)`: after the last write of the result file, the tuned model;
///  - optionally `resumed()`: the earlier run the job continues (a `const JobResume*`, null when
///    it starts afresh; SGAT's --reload): its stamp and result file are kept, and the tasks
///    before its first_task, which `prepare` took from it, are not run again.
template <class S>
concept job_schedule = requires(S& s, const S& cs, typename S::Output& out, std::size_t t) {
  { S::job } -> std::convertible_to<std::string_view>;
  { S::late_stop_interrupts } -> std::convertible_to<bool>;
  { cs.name() } -> std::convertible_to<std::string>;
  { s.check() } -> std::same_as<Result<void>>;
  { s.prepare(out) } -> std::same_as<Result<std::size_t>>;
  { cs.stop_point(t) } -> std::same_as<bool>;
  { s.run_task(t, out) } -> std::same_as<Result<TaskDone>>;
  s.finished(t, out);
  { s.write_model(out) } -> std::same_as<Result<void>>;
};

/// Runs the job `schedule` describes, writing its result file in `result_dir`. Errors are the
/// schedule's and those of the result file; when `stop` is set during the job, the job ends at
/// the next stop point with the report marked "tune tuning incomplete" and returns
/// Errc::interrupted with the job so far in `partial`.
template <job_schedule Schedule>
[[nodiscard]] Result<typename Schedule::Output> run_job(Schedule& schedule,
                                                        const std::filesystem::path& result_dir,
                                                        const std::atomic<bool>* stop,
                                                        typename Schedule::Output* partial) {
  typename Schedule::Output out;
  const JobResume* resume = nullptr;
  if constexpr (requires { schedule.resumed(); }) resume = schedule.resumed();
  auto frame = start_job(out.report, std::string(schedule.name()), result_dir, Schedule::job,
                         resume, [&] { return schedule.check(); });
  if (!frame) return frame.error();
  out.result_file = frame->result_file();
  const auto tasks = schedule.prepare(out);
  if (!tasks) return tasks.error();
  if (auto ok = frame->write(); !ok) return ok.error();
  const auto stopping = [stop] { return stop != nullptr && stop->load(); };
  bool interrupted = false;
  for (std::size_t t = resume != nullptr ? resume->first_task : 0; t < *tasks && !interrupted;
       ++t) {
    if (schedule.stop_point(t) && stopping()) break;
    auto done = schedule.run_task(t, out);
    if (!done) return done.error();
    interrupted = done->interrupted;
    if (done->rewrite) {
      if (auto ok = frame->write(); !ok) return ok.error();
    }
    if (!interrupted) schedule.finished(t, out);
  }
  const bool incomplete = interrupted || (Schedule::late_stop_interrupts && stopping());
  if (auto ok = frame->finish(incomplete, out, partial); !ok) return ok.error();
  if (auto ok = schedule.write_model(out); !ok) return ok.error();
  return out;
}

}  // namespace aoe

#endif  // AOE_JOBS_JOB_DRIVER_HPP
