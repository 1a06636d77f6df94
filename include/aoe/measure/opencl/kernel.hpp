// An OpenCL kernel as a user writes it: source, name, arguments, and the launch geometry as
// functions of the configuration being measured. The arguments, the geometry, the
// configuration's parameters and the checks are the device-neutral ones of measure/kernel/,
// shared with the CUDA runner.
#ifndef AOE_MEASURE_OPENCL_KERNEL_HPP
#define AOE_MEASURE_OPENCL_KERNEL_HPP

#include "aoe/measure/kernel/argument.hpp"
#include "aoe/measure/kernel/check.hpp"
#include "aoe/measure/kernel/params.hpp"
#include "aoe/measure/kernel/range.hpp"
#include "aoe/measure/kernel/source.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace aoe::opencl {

using kernel::Argument;  // a host vector (a buffer) or a scalar
using kernel::Check;     // verification of an output buffer
using kernel::is_buffer;
using kernel::Params;       // the configuration by parameter name
using kernel::Range;        // an NDRange: global work-items or a work-group shape
using kernel::read_source;  // a kernel source file's contents

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
