// One tuner per NPU: an exclusive lock on a device, held for as long as a runner has it open.
// AOE forbids two users tuning on one device (docs/aoe-facts.md#one-tuner-per-device): their
// measurements would disturb each other.
#ifndef AOE_MEASURE_ASCEND_DEVICE_LOCK_HPP
#define AOE_MEASURE_ASCEND_DEVICE_LOCK_HPP

#include "aoe/core/error.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace aoe::ascend {

/// An exclusive claim on device `id`, at two levels: a process-wide registry (a second runner
/// on the same device in this process is refused without touching the file system) and a
/// `flock` on `<directory>/aoe-ascend-device-<id>.lock` (another process, of any user, is
/// refused). The lock file holds the holder's pid, for the message. The kernel drops the flock
/// when the process ends, however it ends, so a crashed tuner never leaves the device locked.
class DeviceLock {
 public:
  DeviceLock() = default;
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;
  DeviceLock(DeviceLock&& o) noexcept
      : id_(std::exchange(o.id_, -1)), fd_(std::exchange(o.fd_, -1)) {}
  DeviceLock& operator=(DeviceLock&& o) noexcept {
    if (this != &o) {
      release();
      id_ = std::exchange(o.id_, -1);
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~DeviceLock() { release(); }

  /// The lock file of device `id` in `directory`.
  [[nodiscard]] static std::filesystem::path path(const std::filesystem::path& directory, int id) {
    return directory / ("aoe-ascend-device-" + std::to_string(id) + ".lock");
  }

  /// Claims device `id`, or fails with Errc::busy ("device busy: ...", naming the holder) or
  /// Errc::io_error (the lock file cannot be created).
  [[nodiscard]] static Result<DeviceLock> acquire(int id, const std::filesystem::path& directory) {
    {
      std::lock_guard lock(registry_mutex());
      if (!registry().insert(id).second) {
        return make_error(Errc::busy, "device busy: Ascend device " + std::to_string(id) +
                                          " is already open in this process (another "
                                          "Runner<device::Ascend>); share that runner, or set "
                                          "ASCEND_DEVICE_ID to another device");
      }
    }
    DeviceLock held;
    held.id_ = id;  // from here on, the destructor gives the registry entry back
    const std::filesystem::path file = path(directory, id);
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);  // NOLINT(*-vararg)
    if (fd >= 0) {
      static_cast<void>(::fchmod(fd, 0666));  // other users' tuners must open it too (umask)
    } else if (errno == EACCES) {
      fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);  // NOLINT(*-vararg): another user's file
    }
    if (fd < 0) {
      return make_error(Errc::io_error, "cannot open the device lock file " + file.string() + ": " +
                                            std::strerror(errno));
    }
    held.fd_ = fd;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const std::string holder = read_holder(fd);
        return make_error(Errc::busy,
                          "device busy: Ascend device " + std::to_string(id) +
                              " is in use by another tuner" +
                              (holder.empty() ? std::string() : " (process " + holder + ")") +
                              ", which holds " + file.string() +
                              "; AOE allows one tuner per device: wait for it to finish or set "
                              "ASCEND_DEVICE_ID to another device");
      }
      return make_error(Errc::io_error, "cannot lock " + file.string() + ": " + std::strerror(err));
    }
    write_holder(fd);
    return held;
  }

  [[nodiscard]] bool held() const noexcept { return id_ >= 0; }
  [[nodiscard]] int device() const noexcept { return id_; }

 private:
  static std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
  }
  static std::set<int>& registry() {
    static std::set<int> ids;
    return ids;
  }

  static std::string read_holder(int fd) {
    char buffer[32] = {};
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    if (n <= 0) return {};
    std::string s(buffer, static_cast<std::size_t>(n));
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  static void write_holder(int fd) {
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) {
      static_cast<void>(::pwrite(fd, pid.data(), pid.size(), 0));  // best effort: the message
    }
  }

  void release() noexcept {
    if (fd_ >= 0) {
      ::close(fd_);  // drops the flock
      fd_ = -1;
    }
    if (id_ >= 0) {
      std::lock_guard lock(registry_mutex());
      registry().erase(id_);
      id_ = -1;
    }
  }

  int id_ = -1;
  int fd_ = -1;
};

}  // namespace aoe::ascend

#endif  // AOE_MEASURE_ASCEND_DEVICE_LOCK_HPP
