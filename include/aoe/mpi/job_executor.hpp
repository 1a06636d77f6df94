// The jobs' executor over MPI ranks (docs/distributed.md): rank 0 runs the job (plan, bank,
// result file, tuned model, output) and hands each tuning step (OPAT: an operator's knowledge
// kind; SGAT: a subgraph) or part of a batch (GDAT) to whichever rank is free, most expensive
// first; the other ranks run the steps with `serve_jobs` and send the results back. One work
// queue serves a whole run, whatever job it runs.
#ifndef AOE_MPI_JOB_EXECUTOR_HPP
#define AOE_MPI_JOB_EXECUTOR_HPP

#include "aoe/mpi/job_wire.hpp"
#include "aoe/mpi/work_queue.hpp"

#include <boost/mpi/communicator.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace aoe::mpi {

/// What rank 0 sends: one job's request (the others are empty).
struct JobRequest {
  enum class Kind : std::uint8_t { opat, sgat, gdat };
  Kind kind = Kind::opat;
  OpatStepRequest opat;
  SgatStepRequest sgat;
  GdatMeasureRequest gdat;

  template <class Archive>
  void serialize(Archive& ar, const unsigned int /*version*/) {
    detail::serialize_enum(ar, kind);
    if (kind == Kind::opat) ar& opat;
    if (kind == Kind::sgat) ar& sgat;
    if (kind == Kind::gdat) ar& gdat;
  }
};

/// What a worker sends back: a step's outcome (OPAT, SGAT) or measurements (GDAT).
struct JobReply {
  StepOutcome step;
  std::vector<Measurement> measurements;

  template <class Archive>
  void serialize(Archive& ar, const unsigned int /*version*/) {
    ar& step;
    ar& measurements;
  }
};

/// What a worker rank runs for each kind of request.
struct JobHandlers {
  StepFunction<OpatStepRequest, StepOutcome> opat;
  StepFunction<SgatStepRequest, StepOutcome> sgat;
  StepFunction<GdatMeasureRequest, std::vector<Measurement>> gdat;
};

namespace detail {

inline JobReply run_job_request(const JobHandlers& h, const JobRequest& q) {
  JobReply r;
  switch (q.kind) {
    case JobRequest::Kind::opat: r.step = h.opat(q.opat); break;
    case JobRequest::Kind::sgat: r.step = h.sgat(q.sgat); break;
    case JobRequest::Kind::gdat: r.measurements = h.gdat(q.gdat); break;
  }
  return r;
}

/// A job's pipeline (StepQueue) over the shared work queue: requests wrapped as `kind`,
/// replies unwrapped. Rank 0 runs its share with `local`; destroying the pipeline drops what
/// was queued and not handed out, and waits for rank 0's own step.
template <class Request, class Reply>
class MpiStepQueue final : public StepQueue<Request, Reply> {
 public:
  MpiStepQueue(std::shared_ptr<WorkQueue<JobRequest, JobReply>> queue, JobRequest::Kind kind,
               Request JobRequest::*field, Reply JobReply::*answer,
               StepFunction<Request, Reply> local)
      : queue_(std::move(queue)), kind_(kind), field_(field), answer_(answer) {
    queue_->set_local([local = std::move(local), field, answer](const JobRequest& q) {
      JobReply r;
      r.*answer = local(q.*field);
      return r;
    });
  }
  ~MpiStepQueue() override {
    queue_->abandon();
    queue_->set_local({});
  }
  std::size_t submit(Request request, double cost) override {
    JobRequest q;
    q.kind = kind_;
    q.*field_ = std::move(request);
    return static_cast<std::size_t>(queue_->submit(std::move(q), cost));
  }
  [[nodiscard]] Result<Reply> wait(std::size_t ticket) override {
    auto r = queue_->wait(ticket);
    if (!r) return r.error();
    return std::move((*r).*answer_);
  }

 private:
  std::shared_ptr<WorkQueue<JobRequest, JobReply>> queue_;
  JobRequest::Kind kind_;
  Request JobRequest::*field_;
  Reply JobReply::*answer_;
};

}  // namespace detail

/// Rank 0's side: the executors of the three jobs (OpatOptions::run.executor, ...) over one
/// work queue. Constructing it is collective with `serve_jobs` on every other rank; destroying it
/// (after the job, or on an exception) makes them return. With one rank, everything runs on
/// rank 0 and the outputs are those of the default (in-process) executor.
class JobExecutor {
 public:
  explicit JobExecutor(const boost::mpi::communicator& world)
      : queue_(std::make_shared<WorkQueue<JobRequest, JobReply>>(world)) {}

  /// The number of ranks that run steps (rank 0 included).
  [[nodiscard]] std::size_t ranks() const noexcept {
    return static_cast<std::size_t>(queue_->workers()) + 1;
  }

  [[nodiscard]] StepExecutor<OpatStepRequest, StepOutcome> opat() const {
    return make<OpatStepRequest, StepOutcome>(JobRequest::Kind::opat, &JobRequest::opat,
                                              &JobReply::step);
  }
  [[nodiscard]] StepExecutor<SgatStepRequest, StepOutcome> sgat() const {
    return make<SgatStepRequest, StepOutcome>(JobRequest::Kind::sgat, &JobRequest::sgat,
                                              &JobReply::step);
  }
  [[nodiscard]] StepExecutor<GdatMeasureRequest, std::vector<Measurement>> gdat() const {
    return make<GdatMeasureRequest, std::vector<Measurement>>(
        JobRequest::Kind::gdat, &JobRequest::gdat, &JobReply::measurements);
  }

 private:
  template <class Request, class Reply>
  [[nodiscard]] StepExecutor<Request, Reply> make(JobRequest::Kind kind, Request JobRequest::*field,
                                                  Reply JobReply::*answer) const {
    StepExecutor<Request, Reply> e;
    e.ranks = ranks();
    e.run = [queue = queue_, kind, field, answer](std::span<const Request> requests,
                                                  std::span<const double> costs,
                                                  const StepFunction<Request, Reply>& local) {
      std::vector<JobRequest> tasks(requests.size());
      for (std::size_t i = 0; i < requests.size(); ++i) {
        tasks[i].kind = kind;
        tasks[i].*field = requests[i];
      }
      auto results = queue->run(
          std::span<const JobRequest>(tasks),
          [&](const JobRequest& q) {
            JobReply r;
            r.*answer = local(q.*field);
            return r;
          },
          costs);
      std::vector<Result<Reply>> out;
      out.reserve(results.size());
      for (auto& r : results) {
        if (r) {
          out.emplace_back(std::move((*r).*answer));
        } else {
          out.emplace_back(r.error());
        }
      }
      return out;
    };
    e.queue = [queue = queue_, kind, field, answer](const StepFunction<Request, Reply>& local)
        -> std::unique_ptr<StepQueue<Request, Reply>> {
      return std::make_unique<detail::MpiStepQueue<Request, Reply>>(queue, kind, field, answer,
                                                                    local);
    };
    return e;
  }

  std::shared_ptr<WorkQueue<JobRequest, JobReply>> queue_;
};

/// A worker rank's side: runs what rank 0's JobExecutor hands out with `handlers` (an
/// exception goes back as that step's error, naming the rank) until rank 0 destroys it.
inline void serve_jobs(const boost::mpi::communicator& world, const JobHandlers& handlers) {
  serve<JobRequest, JobReply>(
      world, [&](const JobRequest& q) { return detail::run_job_request(handlers, q); });
}

}  // namespace aoe::mpi

#endif  // AOE_MPI_JOB_EXECUTOR_HPP
