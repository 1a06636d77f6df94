// A work queue over MPI ranks: rank 0 hands indexed tasks to whichever rank is free (the most
// expensive first) and places each result back at its task's index, so the order in which
// results arrive changes nothing; the other ranks serve until rank 0 is done. The primitive
// under aoe::MpiMeasure (docs/distributed.md).
#ifndef AOE_MPI_WORK_QUEUE_HPP
#define AOE_MPI_WORK_QUEUE_HPP

#include "aoe/core/error.hpp"
#include "aoe/mpi/detail/wire.hpp"

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/status.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <numeric>
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

/// Task indices by decreasing cost (ties, and no costs at all: by index).
inline std::vector<std::size_t> handout_order(std::size_t n, std::span<const double> costs) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (costs.size() == n) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  }
  return order;
}

}  // namespace detail

/// Rank 0's side of a work queue over `world`'s other ranks, which call `serve` with the same
/// Task and R types, once for each WorkQueue rank 0 constructs (construction duplicates the
/// communicator: collective). Task and R: default-constructible, serialisable by
/// Boost.Serialization. Destroying the queue (also by an exception) waits for the tasks still
/// out, then tells every worker to stop: `serve` returns on each.
template <class Task, class R>
class WorkQueue {
 public:
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
    const std::size_t n = tasks.size();
    const std::vector<std::size_t> order = detail::handout_order(n, costs);
    std::vector<std::optional<Result<R>>> slots(n);
    std::size_t next = 0;  // position in `order` of the next task to hand out
    std::size_t done = 0;
    const bool root_works = options_.root_works || workers() == 0;
    const auto place = [&](detail::ResultMessage<R>&& m) {
      if (m.ok) {
        slots[m.index].emplace(boost::system::in_place_value, std::move(m.value));
      } else {
        slots[m.index].emplace(boost::system::in_place_error, Errc::device_error,
                               std::move(m.error));
      }
      ++done;
    };
    const auto hand_out = [&] {
      for (int w = 1; w < comm_.size() && next < n; ++w) {
        if (busy_[static_cast<std::size_t>(w)]) continue;
        const std::size_t i = order[next++];
        comm_.send(w, detail::tag_task, detail::TaskMessage<Task>{i, tasks[i]});
        busy_[static_cast<std::size_t>(w)] = true;
      }
    };
    while (done < n) {
      hand_out();
      // Collect whatever has arrived, refilling each freed worker at once.
      while (auto st = comm_.iprobe(boost::mpi::any_source, detail::tag_result)) {
        place(receive(st->source()));
        hand_out();
      }
      if (root_works && next < n) {
        const std::size_t i = order[next++];
        place(detail::run_task<R>(local, tasks[i], i, 0));
      } else if (done < n) {
        const auto st = comm_.probe(boost::mpi::any_source, detail::tag_result);
        place(receive(st.source()));
      }
    }
    std::vector<Result<R>> out;
    out.reserve(n);
    for (auto& s : slots) out.push_back(std::move(*s));
    return out;
  }

 private:
  detail::ResultMessage<R> receive(int source) {
    detail::ResultMessage<R> m;
    comm_.recv(source, detail::tag_result, m);
    busy_[static_cast<std::size_t>(source)] = false;
    return m;
  }

  void shut_down() noexcept {
    try {
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
    comm.send(0, detail::tag_result, detail::run_task<R>(fn, m.task, m.index, rank));
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
