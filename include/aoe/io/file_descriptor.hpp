// A file descriptor closed on scope exit, errno as text and a system call retried on EINTR: what
// the atomic writer and the banks' locks share.
#ifndef AOE_IO_FILE_DESCRIPTOR_HPP
#define AOE_IO_FILE_DESCRIPTOR_HPP

#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace aoe::detail {

/// A file descriptor closed on scope exit (and a flock on it released with it).
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const noexcept { return fd_; }
  /// Gives the descriptor up: the caller closes it.
  [[nodiscard]] int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

inline std::string errno_text(int e) { return std::generic_category().message(e); }

/// `call()` (a system call returning -1 and errno on failure), called again while it fails with
/// EINTR: a signal that interrupted it is no failure of the file (docs/reliability.md, "When the
/// disk fails").
template <class Call>
[[nodiscard]] auto retry_on_eintr(Call&& call) {
  auto r = call();
  while (r == -1 && errno == EINTR) r = call();
  return r;
}

}  // namespace aoe::detail

#endif  // AOE_IO_FILE_DESCRIPTOR_HPP
