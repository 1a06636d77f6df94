// Reading an input file whole (a model, profile, cluster, bank, cache, catalog): only a regular
// file, and at most the input size limit. A FIFO would block the reader forever, a directory
// reads as empty, /dev/zero never ends: each is refused with a message that says what the path
// is. The limit (default 2 GiB, as protobuf's own limit for ONNX; a JSON model of 10^6 nodes is a
// few hundred MB) is process-wide: AOE_MAX_INPUT_BYTES for the `aoe` command, set_max_input_bytes()
// for a program (docs/reliability.md#input-limits).
#ifndef AOE_IO_READ_INPUT_HPP
#define AOE_IO_READ_INPUT_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/file_descriptor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

namespace aoe {

/// The default input size limit: 2 GiB.
inline constexpr std::uint64_t default_max_input_bytes = std::uint64_t{2} << 30U;

namespace detail {
inline std::atomic<std::uint64_t>& max_input_bytes_slot() {
  static std::atomic<std::uint64_t> limit{default_max_input_bytes};
  return limit;
}
}  // namespace detail

/// The largest input file the readers accept, in bytes.
[[nodiscard]] inline std::uint64_t max_input_bytes() noexcept {
  return detail::max_input_bytes_slot().load(std::memory_order_relaxed);
}
/// Sets the input size limit for the whole process (0 restores the default).
inline void set_max_input_bytes(std::uint64_t bytes) noexcept {
  detail::max_input_bytes_slot().store(bytes == 0 ? default_max_input_bytes : bytes,
                                       std::memory_order_relaxed);
}

namespace detail {

/// What a path that is not a regular file is, for messages ("a directory", "a FIFO", ...).
[[nodiscard]] inline std::string_view file_kind(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// "<file>: <size> bytes is over the input size limit ..." (Errc::unsupported).
[[nodiscard]] inline ErrorInfo input_too_large(const std::string& name, std::uint64_t size) {
  return make_error(Errc::unsupported, name + ": " + std::to_string(size) +
                                           " bytes is over the input size limit of " +
                                           std::to_string(max_input_bytes()) +
                                           " bytes (raise it with AOE_MAX_INPUT_BYTES; "
                                           "docs/reliability.md#input-limits)");
}

/// Opens `file` for reading if it is a regular file of at most max_input_bytes(); returns the
/// descriptor (the caller closes it). Errors as read_input_file's.
[[nodiscard]] inline Result<int> open_input_file(const std::filesystem::path& file,
                                                 std::string_view what) {
  const std::string name = file.string();
  const std::string expected = " (expected " + std::string(what) + ")";
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = retry_on_eintr(
      [&file] { return ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY); });
  if (fd < 0) {
    const int e = errno;
    return make_error(e == ENOENT ? Errc::not_found : Errc::io_error,
                      name + ": cannot open: " + std::strerror(e) + expected);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return make_error(Errc::io_error, name + ": cannot stat: " + std::strerror(e) + expected);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(Errc::io_error, name + ": is " + std::string(file_kind(st.st_mode)) +
                                          ", not a regular file" + expected);
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_input_bytes()) {
    ::close(fd);
    return input_too_large(name, static_cast<std::uint64_t>(st.st_size));
  }
  // Regular files ignore O_NONBLOCK; cleared anyway for whoever reads the descriptor.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

/// The whole content of `file`, which must be a regular file of at most max_input_bytes().
/// `what` says what the file should be ("a JSON model, docs/model_format.md"). Errors:
/// not_found (it does not exist), io_error (a directory, FIFO or device; cannot be opened or
/// read), unsupported (over the limit); each message names the file and says what it is.
[[nodiscard]] inline Result<std::string> read_input_file(const std::filesystem::path& file,
                                                         std::string_view what) {
  const std::string name = file.string();
  auto opened = open_input_file(file, what);
  if (!opened) return opened.error();
  const FileDescriptor closer(*opened);
  const int fd = closer.get();
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return make_error(Errc::io_error, name + ": cannot stat: " + std::strerror(errno));
  }
  const std::uint64_t limit = max_input_bytes();
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (true) {
    if (done == text.size()) {
      if (text.size() > limit) break;
      text.resize(std::min<std::uint64_t>(limit + 1, text.size() + 65536));
    }
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(Errc::io_error, name + ": cannot read: " + std::strerror(errno));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
    if (done > limit) return input_too_large(name, done);
  }
  text.resize(done);
  return text;
}

}  // namespace detail
}  // namespace aoe

#endif  // AOE_IO_READ_INPUT_HPP
