// How an AOE job runs beside what it tunes and how it searches, declared once for the three jobs
// (OPAT, SGAT, GDAT): the work directory of its result file, whether a task left at its default
// is recorded in the bank, the stop flag, the progress callback and where its tuning steps run.
// Each job's options hold one as `run` (aoe::OpatOptions::run, aoe::SgatOptions::run,
// aoe::GdatOptions::run), typed by the job's event and tuning step.
#ifndef AOE_JOBS_JOB_RUN_HPP
#define AOE_JOBS_JOB_RUN_HPP

#include "aoe/jobs/job_skeleton.hpp"

#include <atomic>
#include <filesystem>
#include <functional>

namespace aoe {

/// How a job runs, the same for the three jobs: `Event` is what it tells a progress display
/// (OpatEvent, SgatEvent, GdatEvent), and its tuning step takes a `Request` and gives a `Reply`
/// (job_skeleton.hpp). A member of the job's options, so that they stay an aggregate:
/// `aoe::OpatOptions{.search = "random", .run = {.result_dir = "/tmp/work"}}`.
template <class Event, class Request, class Reply>
struct JobRun {
  /// Record an unsatisfied task (nothing faster found than its default: an operator's default
  /// configuration, a subgraph's untuned strategy, AOE's default split) in the bank with that
  /// default (provenance policy "default"), so that the next job counts it as a hit instead of
  /// tuning it again. AOE writes nothing for it; false does the same.
  bool record_unsatisfied = true;
  std::filesystem::path result_dir = ".";        ///< ASCEND_WORK_PATH or the working directory
  const std::atomic<bool>* stop = nullptr;       ///< set by SIGINT/SIGTERM: end cleanly
  std::function<void(const Event&)> on_event{};  ///< progress
  /// Where the tuning steps run (GDAT's: the parts of each batch of its search, one per rank):
  /// in this process (empty, the default) or over MPI ranks (aoe::mpi::JobExecutor,
  /// docs/distributed.md). The outputs are the same.
  StepExecutor<Request, Reply> executor{};
};

}  // namespace aoe

#endif  // AOE_JOBS_JOB_RUN_HPP
