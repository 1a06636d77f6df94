// An OpenCL kernel as a user writes it: source, name, arguments, and the launch geometry as
// functions of the configuration being measured.
#ifndef AOE_MEASURE_OPENCL_KERNEL_HPP
#define AOE_MEASURE_OPENCL_KERNEL_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/value.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace aoe::opencl {

/// A kernel argument. A host vector becomes a device buffer (uploaded again before each
/// configuration, so that no configuration sees another's output); a scalar is passed by value.
using Argument =
    std::variant<std::vector<float>, std::vector<double>, std::vector<std::int32_t>,
                 std::vector<std::uint32_t>, float, double, std::int32_t, std::uint32_t>;

/// Whether an argument is a buffer (a host vector).
[[nodiscard]] inline bool is_buffer(const Argument& a) noexcept { return a.index() < 4; }

/// An NDRange of one to three dimensions: a count of work-items (global) or a work-group
/// shape (local), as in clEnqueueNDRangeKernel.
struct Range {
  std::array<std::size_t, 3> size{1, 1, 1};
  std::size_t dimensions = 1;

  Range() = default;
  Range(std::size_t x) : size{x, 1, 1}, dimensions(1) {}  // NOLINT(google-explicit-constructor)
  Range(std::size_t x, std::size_t y) : size{x, y, 1}, dimensions(2) {}
  Range(std::size_t x, std::size_t y, std::size_t z) : size{x, y, z}, dimensions(3) {}

  /// Work-items in the range.
  [[nodiscard]] std::size_t items() const noexcept { return size[0] * size[1] * size[2]; }
};

/// The configuration being measured, by parameter name: what the geometry functions and the
/// objective read. `p["MWG"]` is the parameter's numeric value (flags 0/1, enumerations their
/// index); an unknown name throws `aoe::Error` (the measurement fails with its message).
class Params {
 public:
  Params(const Space& space, const Configuration& c) : space_(&space), c_(&c) {}

  [[nodiscard]] std::int64_t operator[](std::string_view name) const {
    return static_cast<std::int64_t>(real(name));
  }
  [[nodiscard]] double real(std::string_view name) const {
    const std::size_t d = dimension(name);
    return space_->parameter(d).numeric((*c_)[d]);
  }
  [[nodiscard]] const Value& value(std::string_view name) const {
    const std::size_t d = dimension(name);
    return space_->parameter(d).level((*c_)[d]);
  }
  [[nodiscard]] bool contains(std::string_view name) const noexcept {
    for (std::size_t d = 0; d < space_->dimensions(); ++d) {
      if (space_->parameter(d).name() == name) return true;
    }
    return false;
  }
  [[nodiscard]] const Space& space() const noexcept { return *space_; }
  [[nodiscard]] const Configuration& configuration() const noexcept { return *c_; }

 private:
  [[nodiscard]] std::size_t dimension(std::string_view name) const {
    for (std::size_t d = 0; d < space_->dimensions(); ++d) {
      if (space_->parameter(d).name() == name) return d;
    }
    throw Error(Errc::invalid_argument,
                "aoe::opencl::Params: the space has no parameter '" + std::string(name) + "'");
  }

  const Space* space_;
  const Configuration* c_;
};

/// Checks an output buffer after a run: element i must be within
/// `absolute + relative * |expected[i]|` of `expected[i]`. A wrong answer is the status
/// `correctness` (Kernel Tuner's verification failure), never a winner.
struct Check {
  std::size_t argument = 0;        ///< index of a buffer argument
  std::vector<double> expected{};  ///< as many elements as that buffer
  double absolute = 1e-5;
  double relative = 1e-4;
};

/// A kernel to tune. Every parameter of the space is passed to the compiler as
/// `-D NAME=VALUE`, with `defines` (fixed values, e.g. problem sizes) and `build_options`.
/// Aggregate:
/// ```
/// aoe::opencl::Kernel k{.source = src, .name = "vadd",
///                       .arguments = {a, b, std::vector<float>(n), std::int32_t(n)},
///                       .global = [n](const Params& p) { return Range(n / p["WPT"]); },
///                       .local = [](const Params& p) { return Range(p["WG"]); }};
/// ```
struct Kernel {
  std::string source{};               ///< OpenCL C (read_source reads a file)
  std::string name{};                 ///< the __kernel function
  std::vector<Argument> arguments{};  ///< in the kernel's order
  /// Global size in work-items (not groups) for a configuration.
  std::function<Range(const Params&)> global{};
  /// Work-group shape for a configuration; empty: the driver chooses (a null local size).
  std::function<Range(const Params&)> local{};
  std::vector<std::pair<std::string, std::string>> defines{};  ///< fixed -D NAME=VALUE
  std::string build_options{};                                 ///< e.g. "-cl-mad-enable"
  std::vector<Check> checks{};  ///< verification of outputs (none: not verified)
};

/// The contents of an OpenCL C source file; `not_found` / `io_error` name the file.
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

/// The compiler options of a configuration: the fixed defines, then every parameter as
/// `-D NAME=VALUE` (enumerations by label), then `build_options`.
[[nodiscard]] inline std::string build_options(const Kernel& kernel, const Space& space,
                                               const Configuration& c) {
  std::string out;
  for (const auto& [name, value] : kernel.defines) out += "-D " + name + "=" + value + " ";
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    out +=
        "-D " + space.parameter(d).name() + "=" + space.parameter(d).level(c[d]).to_string() + " ";
  }
  out += kernel.build_options;
  return out;
}

}  // namespace aoe::opencl

#endif  // AOE_MEASURE_OPENCL_KERNEL_HPP
