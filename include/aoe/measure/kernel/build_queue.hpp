// Builds of kernel programs on several threads, kept for reuse within a run: shared by the
// OpenCL runner (a program per set of -D options) and the CUDA runner (a module per set of
// options and template arguments).
#ifndef AOE_MEASURE_KERNEL_BUILD_QUEUE_HPP
#define AOE_MEASURE_KERNEL_BUILD_QUEUE_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe::kernel {

/// A cache of builds keyed by what determines them (the compiler options, the name
/// expression), filled by worker threads. `Built` is the runner's build result (a program or a
/// binary image, with its log and seconds); a build that throws stores the exception.
template <class Built>
class BuildQueue {
 public:
  using Slot = std::shared_future<Built>;

  /// One configuration's build: its key and how to build it when the key is not cached.
  struct Request {
    std::string key;
    std::function<Built()> build;
  };

  /// The slots of a batch, in batch order, and the threads filling them (joined when the batch
  /// is destroyed: keep it alive until every slot was read).
  struct Batch {
    std::vector<Slot> slots;
    std::vector<std::jthread> threads;
  };

  /// Keeps at most `capacity` builds (and never fewer than the current batch).
  explicit BuildQueue(std::size_t capacity = 128) : capacity_(capacity) {}

  /// Starts the builds of the requests whose key is not cached, on at most `threads` threads
  /// (at least one); a key cached or requested twice is built once. With `wait`, returns only
  /// when every build has finished (a CPU device: builds must not share cores with timed runs).
  [[nodiscard]] Batch start(std::vector<Request> requests, std::size_t threads, bool wait) {
    Batch out;
    out.slots.resize(requests.size());
    struct Job {
      std::function<Built()> build;
      std::shared_ptr<std::promise<Built>> promise;
    };
    auto jobs = std::make_shared<std::vector<Job>>();
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (auto it = cache_.find(requests[i].key); it != cache_.end()) {
        out.slots[i] = it->second;
        continue;
      }
      auto promise = std::make_shared<std::promise<Built>>();
      Slot slot = promise->get_future().share();
      cache_.emplace(requests[i].key, slot);
      order_.push_back(requests[i].key);
      out.slots[i] = slot;
      jobs->push_back({std::move(requests[i].build), std::move(promise)});
    }
    while (order_.size() > std::max(capacity_, requests.size())) {
      cache_.erase(order_.front());
      order_.pop_front();
    }
    builds_ += jobs->size();
    if (jobs->empty()) return out;
    const auto next = std::make_shared<std::atomic<std::size_t>>(0);
    const auto run_jobs = [jobs, next]() {
      for (std::size_t j = (*next)++; j < jobs->size(); j = (*next)++) {
        auto& job = (*jobs)[j];
        try {
          job.promise->set_value(job.build());
        } catch (...) {
          job.promise->set_exception(std::current_exception());
        }
      }
    };
    const std::size_t n = std::clamp<std::size_t>(threads, 1, jobs->size());
    for (std::size_t t = 0; t < n; ++t) out.threads.emplace_back(run_jobs);
    if (wait) {
      for (const auto& s : out.slots) s.wait();
    }
    return out;
  }

  /// Builds started so far (a reused build is counted once).
  [[nodiscard]] std::size_t builds() const noexcept { return builds_; }

  /// Forgets every build (the next request of any key builds again).
  void clear() {
    cache_.clear();
    order_.clear();
  }

 private:
  std::size_t capacity_;
  std::unordered_map<std::string, Slot> cache_;
  std::deque<std::string> order_;
  std::size_t builds_ = 0;
};

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_BUILD_QUEUE_HPP
