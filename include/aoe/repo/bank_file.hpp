// What every on-disk bank shares (the operator knowledge bank, the SGAT graph bank, the GDAT
// gradient-fusion bank): an exclusive lock beside the bank file that any user who may write the
// bank can take, waited for with a timeout, so that two processes writing one bank lose
// nothing; the directories of a team's shared bank; the rule for stored times; and errors that
// say which bank, which file and what was expected (docs/reliability.md, "Locking").
#ifndef AOE_REPO_BANK_FILE_HPP
#define AOE_REPO_BANK_FILE_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/io/file_descriptor.hpp"
#include "aoe/repo/bank_access.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace aoe::detail {

/// Whether `seconds` can be stored as a measured time: positive and finite.
[[nodiscard]] inline bool storable_time(double seconds) noexcept {
  return std::isfinite(seconds) && seconds > 0;
}

/// The error of a store whose time is not a positive finite number.
[[nodiscard]] inline ErrorInfo unstorable_time(const std::string& bank, const std::string& key,
                                               double seconds) {
  return make_error(Errc::invalid_argument, bank + ": refusing to store '" + key + "' with time " +
                                                std::to_string(seconds) +
                                                ": expected a positive finite number of seconds");
}

/// Creates `dir` and its missing parents. Below a set-group-ID directory (a team's shared bank
/// root, `chmod 2775`), each new directory takes that directory's permission bits and
/// set-group-ID bit whatever the umask, so that every member of the group can write it.
[[nodiscard]] inline std::error_code create_bank_directories(const std::filesystem::path& dir) {
  std::error_code ec;
  if (dir.empty() || std::filesystem::is_directory(dir, ec)) return {};
  std::vector<std::filesystem::path> missing;
  std::filesystem::path at = dir;
  struct stat st {};
  while (!at.empty() && ::stat(at.c_str(), &st) != 0) {
    missing.push_back(at);
    if (at == at.parent_path()) break;
    at = at.parent_path();
  }
  const bool inherit =
      !missing.empty() && !at.empty() && S_ISDIR(st.st_mode) && (st.st_mode & S_ISGID) != 0;
  ec = make_directories(dir);
  if (ec || !inherit) return ec;
  for (const auto& m : missing) ::chmod(m.c_str(), st.st_mode & 02777);
  return {};
}

/// Opens (creating it when missing) the lock file `lock_path` in `dir`: a descriptor, or -1 with
/// errno set. Read and write where this user may write it: on NFS the kernel emulates flock with
/// an fcntl lock on the whole file, and an exclusive one needs the file open for writing
/// (flock(2), NOTES). Read-only where the file is another user's and not writable (EACCES,
/// EPERM) or the file system is read-only (EROFS): enough for flock on a local file system.
/// A new lock file is readable by whoever may read the directory, whatever the umask, and, in a
/// set-group-ID, group-writable directory (a team's bank), writable by the group too.
[[nodiscard]] inline int open_lock_file(const std::string& lock_path,
                                        const std::filesystem::path& dir) {
  int fd = -1;
  for (int attempt = 0; attempt < 10 && fd < 0; ++attempt) {
    fd = retry_on_eintr([&lock_path] {
      return ::open(lock_path.c_str(),  // NOLINT(*-vararg)
                    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    });
    if (fd >= 0) {
      struct stat st {};
      if (::stat(dir.empty() ? "." : dir.c_str(), &st) == 0) {
        const bool team = (st.st_mode & S_ISGID) != 0 && (st.st_mode & S_IWGRP) != 0;
        ::fchmod(fd, (st.st_mode & 0444) | S_IWUSR | (team ? S_IWGRP : 0));
      }
      break;
    }
    if (errno != EEXIST) break;
    // O_NONBLOCK: a FIFO planted at the lock's path must not block the open forever.
    for (const int access : {O_RDWR, O_RDONLY}) {
      fd = retry_on_eintr([&lock_path, access] {
        return ::open(lock_path.c_str(),  // NOLINT(*-vararg)
                      access | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      });
      if (fd >= 0 || (errno != EACCES && errno != EPERM && errno != EROFS)) break;
    }
    if (fd < 0 && errno != ENOENT) break;  // ENOENT: removed meanwhile, create it again
  }
  return fd;
}

/// Creates the directory of `file` and takes the exclusive lock `<file>.lock` (flock), held
/// until the returned descriptor is destroyed. The lock file is opened as open_lock_file says
/// (read-only where it cannot be written, enough for flock on a local file system), so any user
/// who may write the bank directory can take it. Waits up to `access.lock_timeout` for
/// another holder, then fails naming the lock file. `bank` names the bank in messages
/// ("knowledge bank", "graph bank", ...). Also removes the temporary files that writers killed
/// in this directory left behind (once per process).
[[nodiscard]] inline Result<std::unique_ptr<FileDescriptor>> lock_bank_file(
    const std::filesystem::path& file, const std::string& bank, const BankAccess& access) {
  const auto dir = file.parent_path();
  if (const auto ec = create_bank_directories(dir)) {
    return make_error(Errc::io_error, bank + ": cannot create directory " + dir.string() + ": " +
                                          ec.message() +
                                          " (expected a writable bank root; see TUNE_BANK_PATH)");
  }
  remove_stale_temporary_files_once(dir);
  const std::string lock_path = file.string() + ".lock";
  const int fd = open_lock_file(lock_path, dir);
  if (fd >= 0) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return make_error(Errc::io_error, bank + ": lock file " + lock_path +
                                            " is not a regular file (remove it; a bank's lock "
                                            "files are plain files)");
    }
  }
  if (fd < 0) {
    const int e = errno;
    return make_error(Errc::io_error,
                      bank + ": cannot open lock file " + lock_path + ": " + errno_text(e) +
                          (e == ELOOP ? " (it is a symbolic link; remove it)"
                                      : " (expected a bank directory this user may write)"));
  }
  auto holder = std::make_unique<FileDescriptor>(fd);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + access.lock_timeout;
  auto pause = std::chrono::milliseconds(2);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      const int e = errno;
      return make_error(Errc::busy, bank + ": cannot lock " + lock_path + ": " + errno_text(e) +
                                        (e == EBADF ? " (on NFS an exclusive lock needs the lock "
                                                      "file writable by this user: chmod g+w it "
                                                      "for a team's bank)"
                                                    : ""));
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      const auto ms = access.lock_timeout.count();
      return make_error(
          Errc::busy,
          bank + ": lock file " + lock_path + " is held by another process; gave up after " +
              (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") +
              " (TUNE_BANK_LOCK_TIMEOUT; a process that hangs holding it must be ended)");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  return holder;
}

}  // namespace aoe::detail

#endif  // AOE_REPO_BANK_FILE_HPP
