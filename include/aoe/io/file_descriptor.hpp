// A file descriptor closed on scope exit, and errno as text: what the atomic writer and the
// banks' locks share.
#ifndef AOE_IO_FILE_DESCRIPTOR_HPP
#define AOE_IO_FILE_DESCRIPTOR_HPP

#include <unistd.h>

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

 private:
  int fd_;
};

inline std::string errno_text(int e) { return std::generic_category().message(e); }

}  // namespace aoe::detail

#endif  // AOE_IO_FILE_DESCRIPTOR_HPP
