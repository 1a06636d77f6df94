// The floor the three AOE jobs (OPAT, SGAT, GDAT) stand on, written once:
//
//   tasks -> per task, in the fixed task order:
//     1. bank lookup (the caller: reads only)
//     2. the tuning step: `tune_step(space, search, measure, seed, limits)`, a function of the
//        task, its seed and its known starting points (in the measure and the search's start)
//        that returns a TuningResult and touches neither the bank nor the result file
//     3. accounting (`account`: the bank write, hit / add / update / reserved / unsatisfied,
//        the record another process stored meanwhile) and the result file rewritten (`JobFrame`)
//   -> the job's end (`JobFrame::finish`: the last, durable write; interrupted or not).
//
// Executor: step 2 is the only part that may run elsewhere. A distributed executor (#14) runs
// the tuning steps of several tasks on other ranks and hands their TuningResults back to the
// caller, which does steps 1 and 3 in task order, so the outputs stay byte-identical whatever
// runs the steps (and at any TUNING_PARALLEL_NUM).
#ifndef AOE_JOBS_JOB_SKELETON_HPP
#define AOE_JOBS_JOB_SKELETON_HPP

#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/core/stop_conditions.hpp"
#include "aoe/core/tuner.hpp"
#include "aoe/jobs/detail/result_file.hpp"
#include "aoe/repo/memory_repository.hpp"
#include "aoe/repo/record.hpp"
#include "aoe/search/any_search.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace aoe {

/// Evaluations per task and the evaluations without improvement after which a task's tuning
/// stops, as --tune_optimization_level sets them (O2 normal, AOE's default; O1 high
/// performance).
struct JobBudget {
  std::size_t evaluations = 0;
  std::size_t patience = 0;
};

/// The budget of `level`: `o2` or `o1`; another level is an error naming the flag.
[[nodiscard]] inline Result<JobBudget> job_budget_preset(std::string_view level, JobBudget o2,
                                                         JobBudget o1) {
  if (level == "O2") return o2;
  if (level == "O1") return o1;
  return make_error(Errc::invalid_argument, "--tune_optimization_level='" + std::string(level) +
                                                "': expected O1 (high performance) or O2 "
                                                "(normal, the default)");
}

/// How long a tuning step may go on: its budget, the batch size, the job's stop flag and a
/// progress callback (evaluations so far, budget) called after each batch.
struct StepLimits {
  JobBudget budget;
  std::size_t batch_size = 8;
  const std::atomic<bool>* stop = nullptr;
  const std::function<void(std::size_t, std::size_t)>* progress = nullptr;
};

namespace detail {

/// FNV-1a: a seed per bank key that does not depend on the standard library's std::hash.
inline std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

/// Stops a tuning step when the job is asked to stop, and reports progress.
struct StepObserver {
  const StepLimits* limits;
  [[nodiscard]] bool on_batch(std::span<const Trial> /*trials*/, const TuningState& state) const {
    if (limits->progress != nullptr && *limits->progress) {
      (*limits->progress)(state.evaluations, limits->budget.evaluations);
    }
    return limits->stop != nullptr && limits->stop->load();
  }
};

}  // namespace detail

/// The tuning step of one task: `search` over `space` with `measure` (which hands back the
/// known starting points' measurements), seeded with `seed`, within `limits`. Reads and writes
/// nothing else: the caller looks the bank up before and accounts after (see the header).
template <class Measure>
[[nodiscard]] TuningResult tune_step(const Space& space, AnySearch search, Measure measure,
                                     std::uint64_t seed, const StepLimits& limits) {
  Tuner<AnySearch, Measure, MemoryRepository> tuner(
      std::move(search), std::move(measure), MemoryRepository{},
      TunerOptions{.seed = seed, .batch_size = limits.batch_size});
  return tuner.tune(
      space, MaxEvaluations{limits.budget.evaluations} || NoImprovement{limits.budget.patience},
      detail::StepObserver{&limits});
}

/// What the bank accounting of a tuned task decided.
struct Accounting {
  JobOutcome outcome = JobOutcome::unsatisfied;
  bool use_found = false;  ///< the job uses the step's best (else what it started from)
};

/// The bank accounting of a task after its tuning step, for the three jobs. `stored`: the bank
/// held a usable record the step started from. `found_better`: the step found something faster
/// than that record (or than the default). `store_found()` writes the step's best,
/// `store_default()` the default when nothing better was found and `record_default` says so.
/// A record that another process stored meanwhile and that is as fast (`kept`): ours is not
/// written and the task counts as not improved (reserved / unsatisfied), but the job uses its
/// own best, which is faster than what it started from.
template <class StoreFound, class StoreDefault>
[[nodiscard]] Result<Accounting> account(bool stored, bool interrupted, bool found_better,
                                         bool record_default, StoreFound&& store_found,
                                         StoreDefault&& store_default) {
  const JobOutcome not_written = stored ? JobOutcome::reserved : JobOutcome::unsatisfied;
  if (interrupted) return Accounting{not_written, false};
  if (found_better) {
    Result<StoreOutcome> s = store_found();
    if (!s) return s.error();
    if (*s == StoreOutcome::kept) return Accounting{not_written, true};
    return Accounting{stored ? JobOutcome::update : JobOutcome::add, true};
  }
  if (!stored && record_default) {
    // The default is the best found: say so in the bank (policy "default"), so that the next
    // job reuses it instead of tuning the same task again.
    Result<StoreOutcome> s = store_default();
    if (!s) return s.error();
  }
  return Accounting{not_written, false};
}

/// A job's result file while it runs: named and stamped at the start, rewritten atomically
/// (valid at every moment), and written durably at the end. `Report` has tuning_name,
/// timestamp, tid, tuning_seconds, finished and interrupted, and a `write_report` overload.
template <class Report>
class JobFrame {
 public:
  /// Stamps `report` for `name`, names the result file aoe_result_<job>_... in `result_dir` and
  /// creates that directory.
  [[nodiscard]] static Result<JobFrame> start(Report& report, std::string name,
                                              const std::filesystem::path& result_dir,
                                              std::string_view job) {
    report.tuning_name = std::move(name);
    report.timestamp = aoe_timestamp();
    report.tid = static_cast<long>(::gettid());
    std::error_code ec;
    std::filesystem::create_directories(result_dir, ec);
    if (ec) {
      return make_error(Errc::io_error, "cannot create the work directory " + result_dir.string() +
                                            ": " + ec.message() + " (see ASCEND_WORK_PATH)");
    }
    return JobFrame(report, result_dir / detail::result_file_name(job, report.timestamp));
  }

  [[nodiscard]] const std::filesystem::path& result_file() const noexcept { return file_; }

  /// Rewrites the result file with the tuning time so far; `durable` adds the fsyncs.
  [[nodiscard]] Result<void> write(bool durable = false) const {
    report_->tuning_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    return write_report(*report_, file_, durable);
  }

  /// The job's end: the report marked finished (and `interrupted`), written durably (or not),
  /// then Errc::interrupted with `job` copied to `partial` when it was interrupted.
  template <class JobResult>
  [[nodiscard]] Result<void> finish(bool interrupted, bool durable, const JobResult& job,
                                    JobResult* partial) const {
    report_->interrupted = interrupted;
    report_->finished = true;
    if (auto ok = write(durable); !ok) return ok.error();
    if (!interrupted) return {};
    if (partial != nullptr) *partial = job;
    return make_error(Errc::interrupted, "the job was interrupted; " + file_.string() +
                                             " holds what was found so far (tune tuning "
                                             "incomplete)");
  }

 private:
  JobFrame(Report& report, std::filesystem::path file) : report_(&report), file_(std::move(file)) {}
  Report* report_;
  std::filesystem::path file_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace aoe

#endif  // AOE_JOBS_JOB_SKELETON_HPP
