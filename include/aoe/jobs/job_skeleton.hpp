// The floor the three AOE jobs (OPAT, SGAT, GDAT) stand on, written once:
//
//   tasks, in a fixed order ->
//     1. plan (the caller, in task order): bank lookup (reads only), what each task starts from,
//        and a `Request` per task that needs tuning;
//     2. the tuning steps: `tune_step(space, search, measure, seed, limits)`, each a function of
//        its request alone (its task, seed and known starting points, and the in-job knowledge
//        the plan put in it) that returns a `StepOutcome` and touches neither the bank nor the
//        result file. A `StepExecutor` runs them: in this process (the default) or spread over
//        MPI ranks (include/aoe/mpi/job_executor.hpp);
//     3. accounting in task order (`account`: the bank write, hit / add / update / reserved /
//        unsatisfied, the record another process stored meanwhile) and the result file
//        rewritten (`JobFrame`);
//   -> the job's end (`JobFrame::finish`: the last, durable write; interrupted or not).
//
// How plan and accounting interleave, so that what a task's step sees is fixed by the task order
// and a constant, never by how many ranks or threads run the steps nor by when their results
// arrive (one process and N ranks write byte-identical banks, result files and tuned models;
// docs/distributed.md):
//   - OPAT, a pipeline of depth D = `job_pipeline_depth` (24): after each task is accounted
//     (in task order), the next tasks are planned, and their steps queued (`StepQueue`), while
//     fewer than D searching steps (a kind to tune that is not a likely bank hit) are planned
//     and not accounted. A task learns in-job knowledge (winners of similar operators, their
//     trials, the bank entries the job wrote) only from the tasks accounted before it was
//     planned, a set fixed by the task order, the plans and D. A bank key that a task planned
//     and not accounted may tune is not tuned again: the later task is accounted after it,
//     exactly as one process would (a bank hit). The queued steps are handed out most
//     expensive first while rank 0 accounts, and rank 0 measures its own share on a thread.
//   - SGAT, waves of `job_wave_width` (8) tasks: a task learns only from earlier waves, each
//     wave's steps run at once and end at one barrier; a key met twice in a wave is tuned once.
//   - GDAT: one search, whose batches are spread.
//
// This header includes what every job uses (the tuner and its stop conditions, seeds, the
// standard library's pieces below), so that a job's header includes only what it adds. Not
// the search policies by name (aoe/search/by_name.hpp, every policy: half the compile time of
// job_driver.hpp's and job_run.hpp's header checks): the three jobs include it.
#ifndef AOE_JOBS_JOB_SKELETON_HPP
#define AOE_JOBS_JOB_SKELETON_HPP

#include "aoe/core/assert.hpp"
#include "aoe/core/error.hpp"
#include "aoe/core/random.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/tuner/memory_repository.hpp"
#include "aoe/tuner/stop_conditions.hpp"
#include "aoe/tuner/tuner.hpp"
#include "aoe/vocab/record.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe {

/// Tasks per wave (see the header): the steps of one wave may run at once, on as many ranks as
/// there are; a task sees the in-job knowledge of the waves before its own. A constant, not the
/// number of ranks, so that outputs do not depend on how many ranks run the job.
inline constexpr std::size_t job_wave_width = 8;

/// OPAT's pipeline depth D (see the header): tasks are planned while fewer than D searching
/// steps are planned and not accounted, so that about D steps run at once, on as many ranks as
/// there are, while rank 0 accounts in task order. A constant, not the number of ranks, so that
/// outputs do not depend on how many ranks run the job.
inline constexpr std::size_t job_pipeline_depth = 24;

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

/// A job's budget presets by --tune_optimization_level: `o2` (normal, AOE's default, also the
/// job's options' default) and `o1` (high performance). Called with a level, the budget of that
/// level (job_budget_preset).
struct JobBudgetPresets {
  JobBudget o2;
  JobBudget o1;
  [[nodiscard]] Result<JobBudget> operator()(std::string_view level) const {
    return job_budget_preset(level, o2, o1);
  }
};

/// What a job that tunes tasks one after another (OPAT's operators, SGAT's subgraphs) tells its
/// progress display (`JobRun::on_event`): task `index` of `count` started, or finished with its
/// report.
template <class TaskReport>
struct JobTaskEvent {
  enum class Kind : std::uint8_t { started, finished } kind = Kind::started;
  std::size_t index = 0;               ///< of the task, 0-based
  std::size_t count = 0;               ///< tasks in the job
  const TaskReport* report = nullptr;  ///< on finished
  std::string name;                    ///< the task's: the operator's or the subgraph's
};

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
/// known starting points' measurements), seeded with `seed`, within `limits`, minimising
/// `objective` (TunerOptions::objective). Reads and writes nothing else: the caller looks the
/// bank up before and accounts after (see the header).
template <class Measure>
[[nodiscard]] TuningResult tune_step(const Space& space, AnySearch search, Measure measure,
                                     std::uint64_t seed, const StepLimits& limits,
                                     const Objective& objective = {}) {
  Tuner<AnySearch, Measure, MemoryRepository> tuner(
      std::move(search), std::move(measure), MemoryRepository{},
      TunerOptions{.seed = seed, .batch_size = limits.batch_size, .objective = objective});
  return tuner.tune(
      space, MaxEvaluations{limits.budget.evaluations} || NoImprovement{limits.budget.patience},
      detail::StepObserver{&limits});
}

/// The search policy of a tuning step, made by name (`made`: make_search or a job's own); a
/// name that makes none throws aoe::Error naming it (a step runs anywhere, MPI ranks included,
/// so it reports by exception; the job checked the name before its first step).
[[nodiscard]] inline AnySearch step_search(Result<AnySearch> made, std::string_view name) {
  if (!made) {
    throw Error(Errc::invalid_argument,
                "search policy '" + std::string(name) + "': " + made.error().message);
  }
  return std::move(*made);
}

/// What a job's bank lookup found for a task: `found`, the stored record's configuration when
/// the task's space holds it; `stale`, a record is stored but its configuration is no longer
/// one of the space (another version or other options wrote it): the task is tuned as new and
/// its result stored with replace, so that the next job finds it (a hit) instead of tuning the
/// task again.
///
/// `hint`: the record's time is not of the kind the job's device gives (a simulated or unsaid
/// time, found by a job on a device that measures): the record is measured again and tuned
/// from, never a hit, and what the job finds replaces it (docs/aoe-facts.md, "Simulated and
/// measured entries").
template <class T>
struct StoredLookup {
  std::optional<T> found;
  bool stale = false;
  bool hint = false;
};

/// The configuration of `space` that a stored record names by `values` when the space holds it
/// and it is valid; otherwise the record is stale.
[[nodiscard]] inline StoredLookup<Configuration> stored_in_space(
    const Space& space, const std::vector<NamedValue>& values) {
  auto cfg = space.find(values);
  if (!cfg || !space.is_valid(*cfg)) return {std::nullopt, true};
  return {std::move(*cfg), false};
}

/// What a tuning step hands back, whatever ran it (serialised between MPI ranks by
/// include/aoe/mpi/job_wire.hpp): every evaluation in order (configuration, measurement and
/// evaluation number; the tuner's clock is left out, it is no output) and the best.
struct StepOutcome {
  std::vector<Trial> history;
  std::optional<Configuration> best_configuration;
  double best_value = std::numeric_limits<double>::infinity();
  std::string policy;
  bool interrupted = false;  ///< the job's stop flag ended the step
  /// OPAT: what the step measured before the search (the default, the stored configuration).
  std::vector<Measurement> measured_first;

  [[nodiscard]] bool found() const noexcept { return best_configuration.has_value(); }

  [[nodiscard]] static StepOutcome of(const TuningResult& r) {
    StepOutcome o;
    o.history.reserve(r.history.size());
    for (const auto& t : r.history)
      o.history.push_back({t.configuration, t.measurement, t.evaluation});
    if (r.found()) {
      o.best_configuration = r.best_configuration;
      o.best_value = r.best_value;
    }
    o.policy = r.policy;
    o.interrupted = r.reason == StopReason::observer;
    return o;
  }
};

/// The step function of a job: a request in, its reply out.
template <class Request, class Reply>
using StepFunction = std::function<Reply(const Request&)>;

/// A pipeline of steps (OPAT's, see the header): `submit` queues a request with its cost and
/// returns its ticket; `wait(ticket)` returns that request's reply (once), running or handing
/// out queued steps meanwhile. Which step runs where and when changes no reply.
template <class Request, class Reply>
class StepQueue {
 public:
  StepQueue() = default;
  StepQueue(const StepQueue&) = delete;
  StepQueue& operator=(const StepQueue&) = delete;
  virtual ~StepQueue() = default;
  virtual std::size_t submit(Request request, double cost) = 0;
  [[nodiscard]] virtual Result<Reply> wait(std::size_t ticket) = 0;
};

/// Where a job's tuning steps run. `run(requests, costs, local)` returns one reply per request,
/// in request order, each what `local(request)` returns, computed here or by the same function
/// on another rank; a step that failed there is an error naming where. `costs` (one per
/// request, or empty) orders the handout: most expensive first. `queue(local)`, when set, makes
/// a pipeline of such steps (`StepQueue`) for the jobs that keep steps running while they
/// account (OPAT); without it they use `run`. `ranks`: how many places run steps at once.
/// Empty `run` and `queue` (the default): every step in this process.
template <class Request, class Reply>
struct StepExecutor {
  std::function<std::vector<Result<Reply>>(std::span<const Request>, std::span<const double>,
                                           const StepFunction<Request, Reply>&)>
      run{};
  std::function<std::unique_ptr<StepQueue<Request, Reply>>(const StepFunction<Request, Reply>&)>
      queue{};
  std::size_t ranks = 1;
};

/// Runs `requests` with `executor` (in this process when it has no `run`).
template <class Request, class Reply>
[[nodiscard]] std::vector<Result<Reply>> run_steps(const StepExecutor<Request, Reply>& executor,
                                                   std::span<const Request> requests,
                                                   std::span<const double> costs,
                                                   const StepFunction<Request, Reply>& local) {
  if (executor.run) return executor.run(requests, costs, local);
  std::vector<Result<Reply>> out;
  out.reserve(requests.size());
  for (const auto& q : requests) out.emplace_back(local(q));
  return out;
}

namespace detail {

/// The pipeline of an executor without `queue`: a wait runs every queued request in one batch,
/// with the executor's `run` (most expensive first) or, without one, here in the order they
/// were queued, each request dropped once it has run. A reply is held from its batch until it is
/// taken; the slots of the oldest tickets are dropped once taken. A job of 10^6 steps may queue
/// them all at once (OPAT's repeats of one operator): nothing is copied to grow, and nothing is
/// kept per step to the job's end.
template <class Request, class Reply>
class BatchStepQueue final : public StepQueue<Request, Reply> {
 public:
  BatchStepQueue(const StepExecutor<Request, Reply>& executor, StepFunction<Request, Reply> local)
      : executor_(executor), local_(std::move(local)) {}
  std::size_t submit(Request request, double cost) override {
    queued_.push_back(std::move(request));
    costs_.push_back(cost);
    tickets_.push_back(first_ + slots_.size());
    slots_.emplace_back();
    return tickets_.back();
  }
  [[nodiscard]] Result<Reply> wait(std::size_t ticket) override {
    AOE_ASSERT(
        ticket >= first_ && ticket - first_ < slots_.size() && !slots_[ticket - first_].taken,
        "BatchStepQueue::wait: a ticket submitted and not yet waited for");
    if (!slots_[ticket - first_].reply) {
      if (executor_.run) {
        const std::vector<Request> batch(std::make_move_iterator(queued_.begin()),
                                         std::make_move_iterator(queued_.end()));
        queued_.clear();
        auto got =
            executor_.run(std::span<const Request>(batch), std::span<const double>(costs_), local_);
        for (std::size_t i = 0; i < got.size(); ++i) {
          slots_[tickets_[i] - first_].reply = std::move(got[i]);
        }
      } else {
        for (std::size_t i = 0; !queued_.empty(); ++i) {
          slots_[tickets_[i] - first_].reply.emplace(local_(queued_.front()));
          queued_.pop_front();
        }
      }
      costs_.clear();
      tickets_.clear();
    }
    Slot& slot = slots_[ticket - first_];
    Result<Reply> r = std::move(*slot.reply);
    slot.reply.reset();
    slot.taken = true;
    while (!slots_.empty() && slots_.front().taken) {
      slots_.pop_front();
      ++first_;
    }
    return r;
  }

 private:
  struct Slot {
    std::optional<Result<Reply>> reply;
    bool taken = false;
  };
  StepExecutor<Request, Reply> executor_;
  StepFunction<Request, Reply> local_;
  std::deque<Request> queued_;
  std::vector<double> costs_;
  std::vector<std::size_t> tickets_;
  std::deque<Slot> slots_;  ///< of tickets first_, first_ + 1, ...
  std::size_t first_ = 0;
};

}  // namespace detail

/// The pipeline of `executor`'s steps, run by `local` here (see StepExecutor).
template <class Request, class Reply>
[[nodiscard]] std::unique_ptr<StepQueue<Request, Reply>> make_step_queue(
    const StepExecutor<Request, Reply>& executor, const StepFunction<Request, Reply>& local) {
  if (executor.queue) return executor.queue(local);
  return std::make_unique<detail::BatchStepQueue<Request, Reply>>(executor, local);
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
/// written and the task counts as `reserved` (the bank holds an entry, at least as good, which
/// is kept), whether the job started from a record or from the default; the job uses its own
/// best, which is faster than what it started from.
template <class StoreFound, class StoreDefault>
[[nodiscard]] Result<Accounting> account(bool stored, bool interrupted, bool found_better,
                                         bool record_default, StoreFound&& store_found,
                                         StoreDefault&& store_default) {
  const JobOutcome not_written = stored ? JobOutcome::reserved : JobOutcome::unsatisfied;
  if (interrupted) return Accounting{not_written, false};
  if (found_better) {
    Result<StoreOutcome> s = store_found();
    if (!s) return s.error();
    if (*s == StoreOutcome::kept) return Accounting{JobOutcome::reserved, true};
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

/// What every job produced: its report and the result file its JobFrame wrote. A job that also
/// writes a tuned model (OPAT, SGAT) adds its path.
template <class Report>
struct JobResult {
  Report report;
  std::filesystem::path result_file;
};

/// Where a job that continues an earlier run of itself starts (SGAT's --reload): that run's
/// stamp, tid and result file, which the job keeps, the tuning time it had spent, and the first
/// task it had not done.
struct JobResume {
  std::string timestamp;
  long tid = 0;
  std::filesystem::path result_file;
  double tuning_seconds = 0;
  std::size_t first_task = 0;
};

/// A job's result file while it runs: named and stamped at the start, rewritten atomically
/// (valid at every moment; not fsynced, a job rewrites it), and written durably at the end
/// (`finish`: fsync of the file and of its directory), the same for every job. `Report` has
/// tuning_name, timestamp, tid, tuning_seconds, finished and interrupted, and a `write_report`
/// overload.
template <class Report>
class JobFrame {
 public:
  /// Stamps `report` for `name`, names the result file aoe_result_<job>_... in `result_dir` and
  /// creates that directory. A job that continues an earlier run (`resume`) keeps that run's
  /// stamp, tid, result file and tuning time.
  [[nodiscard]] static Result<JobFrame> start(Report& report, std::string name,
                                              const std::filesystem::path& result_dir,
                                              std::string_view job,
                                              const JobResume* resume = nullptr) {
    report.tuning_name = std::move(name);
    report.timestamp = resume != nullptr ? resume->timestamp : aoe_timestamp();
    report.tid = resume != nullptr ? resume->tid : static_cast<long>(::gettid());
    const std::error_code ec = make_directories(result_dir);
    if (ec) {
      return make_error(Errc::io_error, "cannot create the work directory " + result_dir.string() +
                                            ": " + ec.message() + " (see ASCEND_WORK_PATH)");
    }
    if (resume != nullptr) {
      JobFrame frame(report, resume->result_file);
      frame.earlier_seconds_ = resume->tuning_seconds;
      return frame;
    }
    return JobFrame(report, result_dir / detail::result_file_name(job, report.timestamp));
  }

  [[nodiscard]] const std::filesystem::path& result_file() const noexcept { return file_; }

  /// Rewrites the result file with the tuning time so far; `durable` adds the fsyncs.
  [[nodiscard]] Result<void> write(bool durable = false) const {
    report_->tuning_seconds =
        earlier_seconds_ +
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    return write_report(*report_, file_, durable);
  }

  /// The job's end: the report marked finished (and `interrupted`), written durably, then
  /// Errc::interrupted with `job` copied to `partial` when it was interrupted.
  template <class JobResult>
  [[nodiscard]] Result<void> finish(bool interrupted, const JobResult& job,
                                    JobResult* partial) const {
    report_->interrupted = interrupted;
    report_->finished = true;
    if (auto ok = write(true); !ok) return ok.error();
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
  double earlier_seconds_ = 0;  ///< of the runs a resumed job continues
};

/// The start every job shares: the result file named and stamped (`JobFrame::start`; `resume`:
/// the run it continues, or null), then
/// `checks` in order (the bank writable for what the job uses, the search name, ...), each a
/// callable returning Result<void>: the first error stops the job before any work.
template <class Report, class... Checks>
[[nodiscard]] Result<JobFrame<Report>> start_job(Report& report, std::string name,
                                                 const std::filesystem::path& result_dir,
                                                 std::string_view job, const JobResume* resume,
                                                 Checks&&... checks) {
  auto frame = JobFrame<Report>::start(report, std::move(name), result_dir, job, resume);
  if (!frame) return frame.error();
  Result<void> ok{};
  const auto check = [&](auto& c) {
    if (ok) ok = c();
  };
  (check(checks), ...);
  if (!ok) return ok.error();
  return frame;
}

}  // namespace aoe

#endif  // AOE_JOBS_JOB_SKELETON_HPP
