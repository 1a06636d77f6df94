// Reads a whole file, gzip-compressed or not, into a string (zlib's gzread passes plain files
// through unchanged). Whoever includes this links zlib (CMake: ZLIB::ZLIB, otherwise -lz).
#ifndef AOE_MEASURE_REPLAY_DETAIL_READ_FILE_HPP
#define AOE_MEASURE_REPLAY_DETAIL_READ_FILE_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/read_input.hpp"

#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>

namespace aoe::replay::detail {

/// The contents of `path` (a regular file), decompressed when it is gzip; the file and the
/// decompressed text are each at most max_input_bytes(). Errors name the file.
[[nodiscard]] inline Result<std::string> read_maybe_gzip(const std::string& path) {
  auto fd = aoe::detail::open_input_file(path, "a JSON file, optionally gzip-compressed");
  if (!fd) return fd.error();
  errno = 0;
  gzFile file = gzdopen(*fd, "rb");
  if (file == nullptr) {
    const int e = errno;
    ::close(*fd);
    return make_error(Errc::io_error,
                      path + ": cannot open (" +
                          (e != 0 ? std::string(std::strerror(e)) : std::string("zlib error")) +
                          ")");
  }
  const std::uint64_t limit = aoe::max_input_bytes();
  gzbuffer(file, 1U << 17U);
  std::string text;
  char buffer[1U << 16U];
  while (true) {
    const int n = gzread(file, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      if (text.size() > limit) {
        gzclose(file);
        return aoe::detail::input_too_large(path + " (decompressed)", text.size());
      }
      continue;
    }
    if (n == 0) break;
    int code = 0;
    const char* message = gzerror(file, &code);
    std::string what = message != nullptr ? message : "read error";
    gzclose(file);
    // A gzip stream cut short reads as Z_BUF_ERROR ("unexpected end of file").
    return make_error(
        code == Z_BUF_ERROR || code == Z_DATA_ERROR ? Errc::parse_error : Errc::io_error,
        path + ": cannot decompress after " + std::to_string(text.size()) + " bytes (" + what +
            ")");
  }
  // gzread returns 0 at a truncated gzip stream too; gzerror then reports Z_BUF_ERROR.
  int code = 0;
  const char* message = gzerror(file, &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    std::string what = message != nullptr ? message : "read error";
    gzclose(file);
    return make_error(Errc::parse_error, path + ": cannot decompress after " +
                                             std::to_string(text.size()) + " bytes (" + what + ")");
  }
  if (gzclose(file) == Z_BUF_ERROR) {
    return make_error(Errc::parse_error, path + ": the gzip stream is truncated (after " +
                                             std::to_string(text.size()) + " decompressed bytes)");
  }
  return text;
}

}  // namespace aoe::replay::detail

#endif  // AOE_MEASURE_REPLAY_DETAIL_READ_FILE_HPP
