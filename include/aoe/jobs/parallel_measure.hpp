// Measures the candidates of a batch in several threads (AOE's TUNING_PARALLEL_NUM), on any
// runner whose `evaluate(const Configuration&) const` is thread-safe (the simulator's is).
#ifndef AOE_JOBS_PARALLEL_MEASURE_HPP
#define AOE_JOBS_PARALLEL_MEASURE_HPP

#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/measurement.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace aoe {

/// A measure policy over a borrowed runner: `threads` workers (the calling thread and
/// `threads - 1` started once, kept for the policy's lifetime) take the batch's configurations
/// in turn. Measurements come back in batch order whatever the threads' timing, so a run is
/// reproducible for a seed. Charges the runner's device time (`reports_device_time`). An
/// exception thrown by the runner for one configuration (in any thread) makes that
/// configuration a failed measurement (status `runtime`) carrying the exception's message; the
/// rest of the batch is measured as usual.
template <class Runner>
class ParallelMeasure {
 public:
  static constexpr bool reports_device_time = true;

  ParallelMeasure(const Runner& runner, int threads)
      : runner_(&runner), pool_(std::make_unique<Pool>(std::max(1, threads) - 1)) {}

  std::vector<Measurement> measure(SpaceView /*view*/, std::span<const Configuration> batch) {
    std::vector<Measurement> out(batch.size());
    const Runner* runner = runner_;
    pool_->run(batch.size(), [&](std::size_t i) { out[i] = evaluate(*runner, batch[i]); });
    return out;
  }

 private:
  static Measurement evaluate(const Runner& runner, const Configuration& c) noexcept {
    try {
      return runner.evaluate(c);
    } catch (const std::exception& e) {
      return failed(std::string("the runner threw: ") + e.what());
    } catch (...) {
      return failed("the runner threw an exception that is not a std::exception");
    }
  }
  static Measurement failed(std::string message) noexcept {
    try {
      return Measurement::failure(Status::runtime, std::move(message));
    } catch (...) {  // out of memory for the message
      Measurement m;
      m.status = Status::runtime;
      return m;
    }
  }

  /// Workers that wait for a batch, share its indices through an atomic counter, and report
  /// back when all are done.
  class Pool {
   public:
    /// A thread the system refuses (`std::system_error`: out of threads or address space)
    /// leaves the pool with the workers it has: the results do not depend on their number.
    /// Anything else stops and wakes the workers already started before it propagates, so
    /// that their join cannot wait forever.
    explicit Pool(int workers) {
      try {
        for (int w = 0; w < workers; ++w) {
          threads_.emplace_back([this](std::stop_token st) { loop(st); });
        }
      } catch (const std::system_error&) {  // keep the workers started so far
      } catch (...) {
        stop_workers();
        throw;
      }
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    ~Pool() { stop_workers(); }  // the jthreads join

    template <class F>
    void run(std::size_t n, F&& f) {
      if (threads_.empty() || n <= 1) {
        for (std::size_t i = 0; i < n; ++i) f(i);
        return;
      }
      {
        std::lock_guard lock(mutex_);
        task_ = [&f](std::size_t i) { f(i); };
        size_ = n;
        next_.store(0);
        busy_ = threads_.size();
        ++generation_;
      }
      wake_.notify_all();
      work();
      std::unique_lock lock(mutex_);
      done_.wait(lock, [this] { return busy_ == 0; });
      task_ = nullptr;
    }

   private:
    void stop_workers() noexcept {
      {
        std::lock_guard lock(mutex_);
        for (auto& t : threads_) t.request_stop();
      }
      wake_.notify_all();
    }
    void work() {
      for (std::size_t i = next_++; i < size_; i = next_++) task_(i);
    }
    void loop(const std::stop_token& st) {
      std::uint64_t seen = 0;
      while (true) {
        {
          std::unique_lock lock(mutex_);
          wake_.wait(lock, [&] { return st.stop_requested() || generation_ != seen; });
          if (st.stop_requested()) return;
          seen = generation_;
        }
        work();
        {
          std::lock_guard lock(mutex_);
          --busy_;
        }
        done_.notify_one();
      }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    std::function<void(std::size_t)> task_;
    std::size_t size_ = 0;
    std::atomic<std::size_t> next_{0};
    std::size_t busy_ = 0;
    std::uint64_t generation_ = 0;
    std::vector<std::jthread> threads_;  // last: stopped and joined before the rest goes
  };

  const Runner* runner_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace aoe

#endif  // AOE_JOBS_PARALLEL_MEASURE_HPP
