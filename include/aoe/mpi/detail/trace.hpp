// Where an MPI job's time goes (docs/distributed.md, "Where the time goes"): with the
// environment variable AOE_MPI_TRACE set to a directory (read by the aoe command), each rank
// appends one line per event to <dir>/rank<R>.trace: "<seconds since the epoch> <event> <a> <b>"
// (the system clock: the ranks of one machine share it). Unset: nothing is written and an event
// costs one branch.
#ifndef AOE_MPI_DETAIL_TRACE_HPP
#define AOE_MPI_DETAIL_TRACE_HPP

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

namespace aoe::mpi::detail {

class Trace {
 public:
  /// The process's trace; `open` it once the rank is known.
  static Trace& get() {
    static Trace t;
    return t;
  }
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;
  ~Trace() {
    if (file_ != nullptr) std::fclose(file_);
  }

  /// Starts writing <dir>/rank<rank>.trace (once; the caller reads AOE_MPI_TRACE). Returns the
  /// reason when the file cannot be opened (no trace then), else an empty string.
  [[nodiscard]] std::string open(const std::string& dir, int rank) {
    const std::lock_guard lock(mutex_);
    if (file_ != nullptr || dir.empty()) return {};
    const std::string path = dir + "/rank" + std::to_string(rank) + ".trace";
    file_ = std::fopen(path.c_str(), "a");
    if (file_ == nullptr) return "cannot open " + path + ": " + std::strerror(errno);
    return {};
  }

  /// One event (`what` a word) with two numbers (the ticket, the rank, ...).
  void event(const char* what, std::int64_t a = -1, std::int64_t b = -1) {
    if (file_ == nullptr) return;
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const std::lock_guard lock(mutex_);
    std::fprintf(file_, "%.6f %s %lld %lld\n", now, what, static_cast<long long>(a),
                 static_cast<long long>(b));
    std::fflush(file_);
  }

 private:
  Trace() = default;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

}  // namespace aoe::mpi::detail

#endif  // AOE_MPI_DETAIL_TRACE_HPP
