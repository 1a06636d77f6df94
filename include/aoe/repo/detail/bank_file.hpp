// What every on-disk bank shares (the operator knowledge bank, the SGAT graph bank, the GDAT
// gradient-fusion bank): an exclusive lock beside the bank file, so that two processes writing
// one bank lose nothing, and errors that say which bank, which file and what was expected.
#ifndef AOE_REPO_DETAIL_BANK_FILE_HPP
#define AOE_REPO_DETAIL_BANK_FILE_HPP

#include "aoe/core/error.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

namespace aoe::detail {

/// A file descriptor closed on scope exit (and its flock released with it).
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

/// Creates the directory of `file` and takes the exclusive lock `<file>.lock` (flock, waiting
/// for other writers), held until the returned descriptor is destroyed. `bank` names the bank in
/// messages ("knowledge bank", "graph bank", ...).
[[nodiscard]] inline Result<std::unique_ptr<FileDescriptor>> lock_bank_file(
    const std::filesystem::path& file, const std::string& bank) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) {
    return make_error(Errc::io_error, bank + ": cannot create directory " +
                                          file.parent_path().string() + ": " + ec.message() +
                                          " (expected a writable bank root; see TUNE_BANK_PATH)");
  }
  const std::string lock_path = file.string() + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(Errc::io_error, bank + ": cannot open lock file " + lock_path + ": " +
                                          errno_text(errno) +
                                          " (expected a writable bank directory)");
  }
  auto holder = std::make_unique<FileDescriptor>(fd);
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) {
      return make_error(Errc::busy, bank + ": cannot lock " + lock_path + ": " + errno_text(errno));
    }
  }
  return holder;
}

}  // namespace aoe::detail

#endif  // AOE_REPO_DETAIL_BANK_FILE_HPP
