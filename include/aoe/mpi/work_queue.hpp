// A work queue over MPI ranks: rank 0 hands indexed tasks to whichever rank is free (the most
// expensive first; rank 0 itself on a thread of its own) and places each result back at its
// task's index, so the order in which results arrive changes nothing; the other ranks serve
// until rank 0 is done. The primitive
// under aoe::MpiMeasure (docs/distributed.md).
#ifndef AOE_MPI_WORK_QUEUE_HPP
#define AOE_MPI_WORK_QUEUE_HPP

#include "aoe/core/error.hpp"
#include "aoe/mpi/detail/trace.hpp"
#include "aoe/mpi/detail/wire.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/status.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe::mpi {

/// How rank 0 shares out the work.
struct WorkQueueOptions {
  /// Rank 0 runs a task itself whenever every worker is busy (it hands tasks out again as soon
  /// as that task is done). Off: rank 0 only hands tasks out and collects results.
  bool root_works = true;
};

namespace detail {

/// Runs `fn(task)`; an exception becomes the error text "rank R: <what>".
template <class R, class Fn, class Task>
ResultMessage<R> run_task(Fn& fn, const Task& task, std::uint64_t index, int rank) {
  ResultMessage<R> out;
  out.index = index;
  try {
    out.value = fn(task);
    out.ok = true;
  } catch (const std::exception& e) {
    out.error = "rank " + std::to_string(rank) + ": " + e.what();
  } catch (...) {
    out.error = "rank " + std::to_string(rank) + ": an exception that is not a std::exception";
  }
  return out;
}

}  // namespace detail

/// Rank 0's side of a work queue over `world`'s other ranks, which call `serve` with the same
/// Task and R types, once for each WorkQueue rank 0 constructs (construction duplicates the
/// communicator: collective). Task and R: default-constructible, serialisable by
/// Boost.Serialization. Two ways to use it: `run` (a batch, every result back) or `submit` and
/// `wait` (a pipeline: tasks queued while others run, each result fetched when it is needed).
/// Rank 0 runs its own tasks on a thread of its own, so that it hands tasks out to the workers
/// while it measures; only the calling thread makes MPI calls. Destroying the queue (also by an
/// exception) waits for the tasks still out, then tells every worker to stop: `serve` returns.
template <class Task, class R>
class WorkQueue {
 public:
  using Local = std::function<R(const Task&)>;

  explicit WorkQueue(const boost::mpi::communicator& world, WorkQueueOptions options = {})
      : comm_(world, boost::mpi::comm_duplicate), options_(options) {
    if (comm_.rank() != 0) {
      throw Error(Errc::invalid_argument,
                  "aoe::mpi::WorkQueue: constructed on rank " + std::to_string(comm_.rank()) +
                      "; only rank 0 hands tasks out, the other ranks call aoe::mpi::serve");
    }
    busy_.assign(static_cast<std::size_t>(comm_.size()), false);
  }
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;
  ~WorkQueue() { shut_down(); }

  /// Number of ranks that take tasks besides rank 0.
  [[nodiscard]] int workers() const noexcept { return comm_.size() - 1; }

  /// Runs every task, on the workers and (options.root_works, or no worker at all) on rank 0
  /// with `local`, which must compute what the workers' function computes. `costs`, empty or
  /// one per task, orders the handout: most expensive first. Returns one result per task, in
  /// task order; a task that threw (on any rank) is an error (`device_error`) whose message
  /// names the rank and the exception's text.
  template <class Fn>
  std::vector<Result<R>> run(std::span<const Task> tasks, Fn&& local,
                             std::span<const double> costs = {}) {
    set_local([&local](const Task& t) -> R { return local(t); });
    std::vector<std::uint64_t> tickets;
    tickets.reserve(tasks.size());
    for (std::size_t i = 0; i < tasks.size(); ++i)
      tickets.push_back(submit(tasks[i], costs.size() == tasks.size() ? costs[i] : 0.0));
    std::vector<Result<R>> out;
    out.reserve(tasks.size());
    for (const auto t : tickets) out.push_back(collect(t));
    set_local({});
    return out;
  }

  /// The function rank 0 runs its tasks with (see `run`); it must outlive every task submitted
  /// until `abandon` or the last `wait`.
  void set_local(Local local) { local_ = std::move(local); }

  /// Queues `task`; the queued tasks are handed out by `wait`, most expensive first (ties: in
  /// order), except the one `wait` waits for. Returns its ticket for `wait`.
  std::uint64_t submit(Task task, double cost) {
    const std::uint64_t ticket = results_.size();
    results_.emplace_back();
    queued_.push_back({ticket, cost, std::move(task)});
    return ticket;
  }

  /// The result of task `ticket`, once: hands queued tasks out and runs them (rank 0's share on
  /// its thread) until that one is back. A queued `ticket` goes out first: rank 0 waits for it.
  Result<R> wait(std::uint64_t ticket) {
    for (auto& q : queued_) {
      if (q.ticket == ticket) q.cost = std::numeric_limits<double>::infinity();
    }
    return collect(ticket);
  }

  /// Drops the queued tasks and waits for rank 0's own task, if one runs (the workers' tasks
  /// still out come back later and are dropped). For a pipeline that stops early.
  void abandon() {
    queued_.clear();
    if (running_.valid()) place(running_.get());
  }

 private:
  struct Queued {
    std::uint64_t ticket;
    double cost;
    Task task;
  };

  /// The result of task `ticket`, handing out and running queued tasks until it is back.
  Result<R> collect(std::uint64_t ticket) {
    if (!results_.at(ticket)) {
      detail::Trace::get().event("wait", static_cast<std::int64_t>(ticket));
      while (!results_.at(ticket)) pump(ticket);
      detail::Trace::get().event("waited", static_cast<std::int64_t>(ticket));
    }
    Result<R> r = std::move(*results_[ticket]);
    results_[ticket].reset();
    return r;
  }

  /// The queued task to hand out next: the most expensive, the earliest among equals.
  Queued take() {
    auto best = queued_.begin();
    for (auto it = queued_.begin(); it != queued_.end(); ++it) {
      if (it->cost > best->cost) best = it;
    }
    Queued q = std::move(*best);
    queued_.erase(best);
    return q;
  }

  void hand_out() {
    for (int w = 1; w < comm_.size() && !queued_.empty(); ++w) {
      if (busy_[static_cast<std::size_t>(w)]) continue;
      Queued q = take();
      detail::Trace::get().event("send", w, static_cast<std::int64_t>(q.ticket));
      comm_.send(w, detail::tag_task, detail::TaskMessage<Task>{q.ticket, std::move(q.task)});
      busy_[static_cast<std::size_t>(w)] = true;
    }
    const bool root_works = options_.root_works || workers() == 0;
    if (root_works && !running_.valid() && !queued_.empty() && local_) {
      auto q = std::make_shared<Queued>(take());
      detail::Trace::get().event("send", 0, static_cast<std::int64_t>(q->ticket));
      running_ = std::async(std::launch::async, [q, fn = local_] {
        auto r = detail::run_task<R>(fn, q->task, q->ticket, 0);
        detail::Trace::get().event("done", 0, static_cast<std::int64_t>(q->ticket));
        return r;
      });
    }
  }

  /// One round of waiting for `ticket`: a worker's result, rank 0's own, or a short sleep.
  void pump(std::uint64_t ticket) {
    hand_out();
    if (auto st = comm_.iprobe(boost::mpi::any_source, detail::tag_result)) {
      place(receive(st->source()));
    } else if (running_.valid()) {
      if (running_.wait_for(std::chrono::milliseconds(2)) == std::future_status::ready)
        place(running_.get());
    } else if (std::any_of(busy_.begin(), busy_.end(), [](bool b) { return b; })) {
      const auto any = comm_.probe(boost::mpi::any_source, detail::tag_result);
      place(receive(any.source()));
    } else {
      throw Error(Errc::invalid_argument, "aoe::mpi::WorkQueue: waiting for task " +
                                              std::to_string(ticket) +
                                              ", which is neither queued nor running");
    }
  }

  void place(detail::ResultMessage<R>&& m) {
    if (m.index >= results_.size()) return;
    if (m.ok) {
      results_[m.index].emplace(in_place_value, std::move(m.value));
    } else {
      results_[m.index].emplace(in_place_error, Errc::device_error, std::move(m.error));
    }
  }

  detail::ResultMessage<R> receive(int source) {
    detail::ResultMessage<R> m;
    comm_.recv(source, detail::tag_result, m);
    detail::Trace::get().event("recv", source, static_cast<std::int64_t>(m.index));
    busy_[static_cast<std::size_t>(source)] = false;
    return m;
  }

  void shut_down() noexcept {
    try {
      queued_.clear();
      if (running_.valid()) running_.wait();
      for (int w = 1; w < comm_.size(); ++w) {
        if (busy_[static_cast<std::size_t>(w)]) static_cast<void>(receive(w));  // left by a throw
        comm_.send(w, detail::tag_stop);
      }
    } catch (...) {  // MPI failed: mpirun ends the job; nothing better to do in a destructor
    }
  }

  boost::mpi::communicator comm_;
  WorkQueueOptions options_;
  std::vector<bool> busy_;  ///< per rank: a task is out there
  Local local_;
  std::vector<Queued> queued_;                     ///< submitted, not handed out yet
  std::vector<std::optional<Result<R>>> results_;  ///< by ticket, until fetched
  std::future<detail::ResultMessage<R>> running_;  ///< rank 0's own task
};

/// A worker rank's side: receives tasks from rank 0, answers each with `fn(task)` (an exception
/// is sent back as the task's error), and returns when rank 0's WorkQueue is destroyed.
/// Collective with rank 0's WorkQueue construction (one `serve` per WorkQueue).
template <class Task, class R, class Fn>
void serve(const boost::mpi::communicator& world, Fn&& fn) {
  const boost::mpi::communicator comm(world, boost::mpi::comm_duplicate);
  const int rank = comm.rank();
  while (true) {
    const auto st = comm.probe(0, boost::mpi::any_tag);
    if (st.tag() == detail::tag_stop) {
      comm.recv(0, detail::tag_stop);
      return;
    }
    detail::TaskMessage<Task> m;
    comm.recv(0, detail::tag_task, m);
    detail::Trace::get().event("task", rank, static_cast<std::int64_t>(m.index));
    auto r = detail::run_task<R>(fn, m.task, m.index, rank);
    detail::Trace::get().event("done", rank, static_cast<std::int64_t>(m.index));
    comm.send(0, detail::tag_result, r);
  }
}

/// Collective one-shot: rank 0 gets one result per task (task order; handed out by decreasing
/// `costs`, if given), the other ranks serve and get an empty vector. `fn(const Task&) -> R`
/// runs wherever the task lands, rank 0 included; `tasks` and `costs` matter on rank 0 only.
template <class Task, class Fn,
          class R = std::remove_cvref_t<std::invoke_result_t<Fn&, const Task&>>>
std::vector<Result<R>> distribute(const boost::mpi::communicator& world,
                                  std::span<const Task> tasks, Fn&& fn,
                                  std::span<const double> costs = {},
                                  WorkQueueOptions options = {}) {
  if (world.rank() != 0) {
    serve<Task, R>(world, fn);
    return {};
  }
  WorkQueue<Task, R> queue(world, options);
  return queue.run(tasks, fn, costs);
}

}  // namespace aoe::mpi

#endif  // AOE_MPI_WORK_QUEUE_HPP
