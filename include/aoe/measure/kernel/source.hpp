// Reading a kernel's source file (OpenCL C or CUDA C++).
#ifndef AOE_MEASURE_KERNEL_SOURCE_HPP
#define AOE_MEASURE_KERNEL_SOURCE_HPP

#include "aoe/core/error.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace aoe::kernel {

/// The contents of a kernel source file; `not_found` / `io_error` name the file.
[[nodiscard]] inline Result<std::string> read_source(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return make_error(Errc::not_found, path.string() + ": no such kernel source file");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return make_error(Errc::io_error, path.string() + ": cannot read it");
  return text.str();
}

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_SOURCE_HPP
