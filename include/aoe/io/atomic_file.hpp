// The one way OpenAOE writes a file (result files, reports, tuned models, the three banks,
// exports): a new file made beside the target, filled, renamed over it. Readers see the old
// file or the new one, never half of one; a process killed at any moment leaves the old file
// intact and, at worst, a temporary file that the next run removes (docs/reliability.md,
// "Atomic files").
//
// The temporary file is created in the target's directory with
// O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC under an unpredictable name
//     .<target name, at most 100 bytes>.aoe-tmp.<pid>.<host>.<16 random hex digits>
// so that nothing planted in the directory (a symlink at a guessed name) is ever followed or
// truncated. The pid and host say whose it is: the first write of a process in a directory
// removes the temporary files of this host's processes that no longer exist (never those of a
// live process).
//
// A target that is a symbolic link is refused with a named error: OpenAOE never writes through
// a link (a link planted where a result or a bank file goes must not redirect the write), and
// replacing the link by a regular file would silently cut it. A target that exists and is not a
// regular file (a directory, a FIFO) is refused too. A regular target's permission bits are
// kept.
//
// The content is given whole (a string) or made while it is written: a callable fills an
// `AtomicFileSink`, which writes it out about every megabyte, so that a file of hundreds of
// megabytes (a tuned model of 10^6 nodes) is never held in memory. A fill that fails, or a write
// that fails (a full disk), leaves the target as it was and no temporary file.
#ifndef AOE_IO_ATOMIC_FILE_HPP
#define AOE_IO_ATOMIC_FILE_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/file_descriptor.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace aoe {

namespace detail {

/// The marker between the target's name and the owner in a temporary file's name.
inline constexpr std::string_view atomic_temp_marker = ".aoe-tmp.";

/// This host's name with every byte other than [A-Za-z0-9-] dropped, at most 32 bytes ("host"
/// when it cannot be read): a part of temporary names that never holds a dot.
inline const std::string& atomic_temp_host() {
  static const std::string host = [] {
    std::array<char, 256> buf{};
    std::string out;
    if (::gethostname(buf.data(), buf.size() - 1) == 0) {
      for (const char* c = buf.data(); *c != '\0' && out.size() < 32; ++c) {
        const auto u = static_cast<unsigned char>(*c);
        if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
            u == '-') {
          out.push_back(*c);
        }
      }
    }
    return out.empty() ? std::string("host") : out;
  }();
  return host;
}

/// 64 unpredictable bits as 16 hex digits (getrandom; the kernel's pool).
inline std::string atomic_temp_random() {
  std::uint64_t bits = 0;
  auto* p = reinterpret_cast<unsigned char*>(&bits);  // NOLINT(*-reinterpret-cast)
  std::size_t got = 0;
  while (got < sizeof bits) {
    const auto n = ::getrandom(p + got, sizeof bits - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[static_cast<std::size_t>(i)] = hex[(bits >> (4 * i)) & 15U];
  return out;
}

/// The owner written into a temporary file's name, if `name` is one.
struct TempOwner {
  long pid = 0;
  std::string host;
};

/// Parses ".<name>.aoe-tmp.<pid>.<host>.<random>"; nullopt for any other name.
inline std::optional<TempOwner> atomic_temp_owner(std::string_view name) {
  if (name.empty() || name.front() != '.') return std::nullopt;
  const auto at = name.rfind(atomic_temp_marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = name.substr(at + atomic_temp_marker.size());
  const auto d1 = rest.find('.');
  if (d1 == std::string_view::npos || d1 == 0 || d1 > 10) return std::nullopt;
  const auto d2 = rest.find('.', d1 + 1);
  if (d2 == std::string_view::npos || d2 == d1 + 1) return std::nullopt;
  const std::string_view random = rest.substr(d2 + 1);
  if (random.size() != 16 || random.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return std::nullopt;
  }
  TempOwner owner;
  for (const char c : rest.substr(0, d1)) {
    if (c < '0' || c > '9') return std::nullopt;
    owner.pid = owner.pid * 10 + (c - '0');
  }
  owner.host = std::string(rest.substr(d1 + 1, d2 - d1 - 1));
  return owner;
}

/// Whether a process of this pid namespace exists (EPERM: it exists, owned by another user).
inline bool process_alive(long pid) {
  if (pid <= 0) return true;  // never treat a malformed pid as dead
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

}  // namespace detail

/// Removes, in `dir`, the temporary files of the atomic writer that belong to processes of this
/// host that no longer exist (a writer killed between creating and renaming its file). Files of
/// live processes, of other hosts and every other file are left alone; what cannot be removed
/// (no permission) is left too. Returns how many were removed.
inline std::size_t remove_stale_temporary_files(const std::filesystem::path& dir) {
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return 0;
  DIR* d = ::fdopendir(dfd);
  if (d == nullptr) {
    ::close(dfd);
    return 0;
  }
  std::size_t removed = 0;
  const long self = static_cast<long>(::getpid());
  while (const dirent* e = ::readdir(d)) {  // NOLINT(concurrency-mt-unsafe): one stream each
    const auto owner = detail::atomic_temp_owner(e->d_name);
    if (!owner || owner->host != detail::atomic_temp_host() || owner->pid == self) continue;
    if (detail::process_alive(owner->pid)) continue;
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
      continue;
    }
    if (::unlinkat(dfd, e->d_name, 0) == 0) ++removed;
  }
  ::closedir(d);  // closes dfd
  return removed;
}

/// std::filesystem::create_directories(dir, ec), made again while it fails with EINTR (a signal,
/// no failure of the file system). Returns the error, empty when `dir` exists.
[[nodiscard]] inline std::error_code make_directories(const std::filesystem::path& dir) {
  std::error_code ec;
  do {
    ec.clear();
    std::filesystem::create_directories(dir, ec);
  } while (ec == std::errc::interrupted);
  return ec;
}

namespace detail {

/// `remove_stale_temporary_files(dir)` once per directory and process (the first write there, or
/// the first read of a bank file there).
inline void remove_stale_temporary_files_once(const std::filesystem::path& dir) {
  static std::mutex mutex;
  static std::set<std::string> done;
  std::error_code ec;
  auto key = std::filesystem::absolute(dir.empty() ? std::filesystem::path(".") : dir, ec);
  const std::string k = ec ? dir.string() : key.lexically_normal().string();
  {
    std::lock_guard lock(mutex);
    if (!done.insert(k).second) return;
  }
  remove_stale_temporary_files(dir);
}

}  // namespace detail

/// What a fill of write_file_atomically writes into: the temporary file, through a buffer that
/// is written out with write(2) each time it holds a megabyte (`chunk_bytes`); a piece of a
/// megabyte or more goes straight to the file. The first write that fails (a full disk) is kept
/// and what follows is dropped: write_file_atomically then removes the temporary file and names
/// the error. `append` and `push_back` are std::string's, so code that writes text can take
/// either.
class AtomicFileSink {
 public:
  static constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

  /// A sink writing to `fd`, an open file it does not own (write_file_atomically makes it).
  explicit AtomicFileSink(int fd) : fd_(fd) {}
  AtomicFileSink(const AtomicFileSink&) = delete;
  AtomicFileSink& operator=(const AtomicFileSink&) = delete;
  ~AtomicFileSink() = default;

  void append(std::string_view s) {
    if (buffer_.size() + s.size() < chunk_bytes) {
      buffer_.append(s);
      return;
    }
    flush();
    if (s.size() < chunk_bytes) {
      buffer_.append(s);
    } else {
      write_all(s);
    }
  }
  void push_back(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= chunk_bytes) flush();
  }
  /// Writes out what the buffer holds; false once a write has failed.
  bool flush() {
    write_all(buffer_);
    buffer_.clear();
    return ok();
  }
  /// Whether every write so far succeeded.
  [[nodiscard]] bool ok() const noexcept { return error_ == 0; }
  /// The errno of the first write that failed, 0 when none did.
  [[nodiscard]] int error() const noexcept { return error_; }

 private:
  void write_all(std::string_view s) {
    while (error_ == 0 && !s.empty()) {
      const auto n = ::write(fd_, s.data(), s.size());
      if (n < 0) {
        if (errno != EINTR) error_ = errno;
        continue;
      }
      s.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  int fd_;
  int error_ = 0;
  std::string buffer_;
};

/// A callable that writes a file's content into an AtomicFileSink: Result<void> fill(sink), an
/// error when the content cannot be made.
template <class F>
concept atomic_file_fill = std::is_invocable_r_v<Result<void>, F&, AtomicFileSink&>;

namespace detail {

/// Checks the target of write_file_atomically: an error when `name` names no file or `file` is a
/// symbolic link, exists and is not a regular file, or cannot be looked at; otherwise the
/// permission bits of the regular file there, or nullopt when there is none.
inline Result<std::optional<mode_t>> atomic_target_mode(const std::filesystem::path& file,
                                                        const std::string& name) {
  if (name.empty() || name == "." || name == "..") {
    return make_error(Errc::invalid_argument,
                      "cannot write '" + file.string() + "': expected a path naming a file");
  }
  struct stat st {};
  if (::lstat(file.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      std::error_code ec;
      const auto to = std::filesystem::read_symlink(file, ec);
      return make_error(Errc::invalid_argument,
                        "refusing to write " + file.string() + ": it is a symbolic link" +
                            (ec ? std::string() : " (to " + to.string() + ")") +
                            "; OpenAOE replaces its files by renaming a new file into place and "
                            "never writes through a link: give the path of the real file, or "
                            "remove the link");
    }
    if (!S_ISREG(st.st_mode)) {
      return make_error(Errc::invalid_argument,
                        "refusing to write " + file.string() + ": it exists and is " +
                            (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                            " (expected a regular file or no file)");
    }
    return std::optional<mode_t>(st.st_mode & 07777);
  }
  if (errno != ENOENT) {
    return make_error(Errc::io_error,
                      "cannot write " + file.string() + ": " + detail::errno_text(errno));
  }
  return std::optional<mode_t>();
}

/// Creates the temporary file for `file` in `dir_text` (O_EXCL, O_NOFOLLOW, an unpredictable
/// name; up to 100 names are tried): its descriptor, with its path in `tmp`.
inline Result<int> create_atomic_temp(const std::filesystem::path& file,
                                      const std::string& dir_text, const std::string& name,
                                      std::string& tmp) {
  const std::string prefix = dir_text + "/." + name.substr(0, 100) +
                             std::string(detail::atomic_temp_marker) + std::to_string(::getpid()) +
                             "." + detail::atomic_temp_host() + ".";
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = prefix + detail::atomic_temp_random();
    fd = retry_on_eintr([&tmp] {
      return ::open(tmp.c_str(),  // NOLINT(*-vararg)
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    });
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    return make_error(Errc::io_error, "cannot write " + file.string() +
                                          ": cannot create a temporary file in " + dir_text + ": " +
                                          detail::errno_text(errno) +
                                          " (expected an existing, writable directory)");
  }
  return fd;
}

/// Removes the temporary file `tmp` and names the step `what` of writing `file` that failed
/// with errno `e`.
inline ErrorInfo atomic_write_failed(const std::filesystem::path& file, const std::string& tmp,
                                     const std::string& what, int e) {
  (void)retry_on_eintr([&tmp] { return ::unlink(tmp.c_str()); });
  return make_error(Errc::io_error,
                    "cannot write " + file.string() + ": " + what + ": " + detail::errno_text(e));
}

/// Fills the temporary file `tmp`, open as `fd` (closed on return), with what `fill` writes:
/// the permission bits `keep_mode` first, then the content, then (when `durable`) an fsync, then
/// the close, whose error is one too. On an error, and when the fill throws, `tmp` is removed.
template <class Fill>
[[nodiscard]] Result<void> fill_atomic_temp(const std::filesystem::path& file,
                                            const std::string& tmp, int fd,
                                            std::optional<mode_t> keep_mode, Fill& fill,
                                            bool durable) {
  detail::FileDescriptor holder(fd);
  if (keep_mode && ::fchmod(fd, *keep_mode) != 0) {
    return atomic_write_failed(file, tmp, "fchmod", errno);
  }
  AtomicFileSink sink(fd);
  Result<void> filled;
  try {
    filled = fill(sink);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (filled) sink.flush();
  if (!sink.ok()) return atomic_write_failed(file, tmp, "write", sink.error());
  if (!filled) {
    ::unlink(tmp.c_str());
    return filled.error();
  }
  if (durable && retry_on_eintr([fd] { return ::fsync(fd); }) != 0) {
    return atomic_write_failed(file, tmp, "fsync", errno);
  }
  // close reports what a network file system could not write back (close(2)); EINTR there
  // still closed the descriptor (Linux), so it is not made again.
  if (::close(holder.release()) != 0 && errno != EINTR) {
    return atomic_write_failed(file, tmp, "close", errno);
  }
  return {};
}

/// Makes the rename of `file` durable: an fsync of its directory `dir_text` (a file system that
/// cannot sync directories, EINVAL, is no error).
inline Result<void> sync_atomic_directory(const std::filesystem::path& file,
                                          const std::string& dir_text) {
  const int dfd = retry_on_eintr(
      [&dir_text] { return ::open(dir_text.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  if (dfd < 0) {
    return make_error(Errc::io_error, "cannot write " + file.string() + ": open directory " +
                                          dir_text + ": " + detail::errno_text(errno));
  }
  detail::FileDescriptor dholder(dfd);
  // EINVAL: a file system that cannot sync directories (the rename is then as durable as it
  // gets there).
  if (retry_on_eintr([dfd] { return ::fsync(dfd); }) != 0 && errno != EINVAL) {
    return make_error(Errc::io_error, "cannot write " + file.string() + ": fsync directory " +
                                          dir_text + ": " + detail::errno_text(errno));
  }
  return {};
}

}  // namespace detail

/// Writes to `file` atomically what `fill(AtomicFileSink&)` writes into its sink: a temporary
/// file in the same directory (O_EXCL, O_NOFOLLOW, an unpredictable name), filled, fsync, rename
/// over the target, fsync of the directory. `durable = false` skips the two fsyncs: still atomic
/// for readers and when the process is killed, but not across a power loss (for files rewritten
/// often, such as a job's report). The directory must exist. Errors name the file: a target that
/// is a symbolic link or not a regular file, a directory that cannot be written, a write that
/// fails (a full disk). When the fill returns an error, that error is returned unchanged (after
/// a failed write, which is named instead); in every error, and when the fill throws, the
/// temporary file is removed and the target is left as it was.
template <atomic_file_fill Fill>
[[nodiscard]] Result<void> write_file_atomically(const std::filesystem::path& file, Fill&& fill,
                                                 bool durable = true) {
  const std::filesystem::path dir = file.parent_path();
  const std::string dir_text = dir.empty() ? std::string(".") : dir.string();
  const std::string name = file.filename().string();
  const auto keep_mode = detail::atomic_target_mode(file, name);
  if (!keep_mode) return keep_mode.error();
  detail::remove_stale_temporary_files_once(dir);

  std::string tmp;
  const auto fd = detail::create_atomic_temp(file, dir_text, name, tmp);
  if (!fd) return fd.error();
  if (auto filled = detail::fill_atomic_temp(file, tmp, *fd, *keep_mode, fill, durable); !filled) {
    return filled;
  }
  if (detail::retry_on_eintr([&] { return ::rename(tmp.c_str(), file.c_str()); }) != 0) {
    return detail::atomic_write_failed(file, tmp, "rename", errno);
  }
  if (!durable) return {};
  return detail::sync_atomic_directory(file, dir_text);
}

/// Checks now what write_file_atomically(file, ...) needs from the file system before it fills
/// anything: the target is one it would write (not a link, a regular file or none), and its
/// directory lets it create its temporary file (one is created and removed). A job calls it at
/// its start, so that an unwritable bank directory fails before anything is tuned, not at the
/// first store. The errors are write_file_atomically's ("cannot write <file>: cannot create a
/// temporary file in <dir>: Permission denied (...)").
[[nodiscard]] inline Result<void> check_atomic_write(const std::filesystem::path& file) {
  const std::filesystem::path dir = file.parent_path();
  const std::string dir_text = dir.empty() ? std::string(".") : dir.string();
  const std::string name = file.filename().string();
  const auto keep_mode = detail::atomic_target_mode(file, name);
  if (!keep_mode) return keep_mode.error();
  std::string tmp;
  const auto fd = detail::create_atomic_temp(file, dir_text, name, tmp);
  if (!fd) return fd.error();
  ::close(*fd);
  if (detail::retry_on_eintr([&tmp] { return ::unlink(tmp.c_str()); }) != 0) {
    return make_error(Errc::io_error, "cannot write " + file.string() + ": unlink " + tmp + ": " +
                                          detail::errno_text(errno));
  }
  return {};
}

/// Writes `text` to `file` atomically: write_file_atomically with a fill that appends `text`.
[[nodiscard]] inline Result<void> write_file_atomically(const std::filesystem::path& file,
                                                        std::string_view text,
                                                        bool durable = true) {
  return write_file_atomically(
      file,
      [text](AtomicFileSink& out) -> Result<void> {
        out.append(text);
        return {};
      },
      durable);
}

}  // namespace aoe

#endif  // AOE_IO_ATOMIC_FILE_HPP
