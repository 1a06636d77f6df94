// A CUDA kernel as a user writes it: source, name, template arguments, arguments, and the launch
// geometry as functions of the configuration being measured. The arguments, the geometry, the
// configuration's parameters and the checks are the device-neutral ones of measure/kernel/,
// shared with the OpenCL runner.
#ifndef AOE_MEASURE_CUDA_KERNEL_HPP
#define AOE_MEASURE_CUDA_KERNEL_HPP

#include "aoe/measure/cuda/gpu_settings.hpp"
#include "aoe/measure/kernel/argument.hpp"
#include "aoe/measure/kernel/check.hpp"
#include "aoe/measure/kernel/params.hpp"
#include "aoe/measure/kernel/range.hpp"
#include "aoe/measure/kernel/source.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aoe::cuda {

using kernel::Argument;  // a host vector (a device buffer) or a scalar
using kernel::Check;     // verification of an output buffer
using kernel::is_buffer;
using kernel::Params;       // the configuration by parameter name
using kernel::Range;        // a grid (in blocks) or a block (in threads)
using kernel::read_source;  // a kernel source file's contents

/// A kernel to tune. A parameter of the space reaches the kernel in one of two ways:
///   - named in `template_arguments`: as a template argument of the kernel, in that order
///     (`gemm<64, 4, true>`; a flag as `true`/`false`, an enumeration by its label). The runner
///     asks NVRTC for that instance (a name expression) and launches it by its lowered name;
///   - otherwise: as a macro, `-DNAME=VALUE`, as Kernel Tuner passes its tunable parameters;
///     except the parameters that set the GPU (`nvml_gr_clock`, `nvml_mem_clock`,
///     `nvml_pwr_limit`: gpu_settings.hpp), which reach NVML, never the compiler.
/// A `template_arguments` entry that is no parameter's name is copied as it is (`float`).
/// Aggregate:
/// ```
/// aoe::cuda::Kernel k{.source = src, .name = "vadd", .template_arguments = {"float", "TPB"},
///                     .arguments = {a, b, std::vector<float>(n), std::int32_t(n)},
///                     .grid = [n](const Params& p) { return Range(n / p["TPB"]); },
///                     .block = [](const Params& p) { return Range(p["TPB"]); }};
/// ```
struct Kernel {
  std::string source{};                           ///< CUDA C++ (read_source reads a file)
  std::string name{};                             ///< the __global__ function (or template)
  std::vector<std::string> template_arguments{};  ///< parameters (or fixed text), in order
  std::vector<Argument> arguments{};              ///< in the kernel's order
  /// The grid, in blocks, for a configuration.
  std::function<Range(const Params&)> grid{};
  /// The block, in threads, for a configuration.
  std::function<Range(const Params&)> block{};
  /// Dynamic shared memory per block in bytes (empty: none). Over 48 KiB the runner opts in
  /// (cuFuncSetAttribute) up to the device's limit.
  std::function<std::size_t(const Params&)> shared_memory_bytes{};
  std::vector<std::pair<std::string, std::string>> defines{};  ///< fixed -D NAME=VALUE
  /// Further NVRTC options, e.g. "--use_fast_math", "-lineinfo" (the runner adds the target
  /// architecture and -std=c++17 unless one is given).
  std::vector<std::string> compiler_options{};
  std::vector<Check> checks{};  ///< verification of outputs (none: not verified)
};

/// The text of a parameter's value in C++: a flag as `true`/`false`, else the value's text.
[[nodiscard]] inline std::string cpp_value(const Parameter& parameter, std::uint32_t level) {
  if (parameter.kind() == ParameterKind::flag) return level != 0 ? "true" : "false";
  return parameter.level(level).to_string();
}

/// The name expression of the configuration's kernel instance: `name` alone without template
/// arguments, else `name<a, b, ...>`.
[[nodiscard]] inline std::string name_expression(const Kernel& kernel, const Space& space,
                                                 const Configuration& c) {
  if (kernel.template_arguments.empty()) return kernel.name;
  std::string out = kernel.name + "<";
  for (std::size_t i = 0; i < kernel.template_arguments.size(); ++i) {
    const std::string& argument = kernel.template_arguments[i];
    std::optional<std::size_t> dimension;
    for (std::size_t d = 0; d < space.dimensions(); ++d) {
      if (space.parameter(d).name() == argument) dimension = d;
    }
    out += (i > 0 ? ", " : "") +
           (dimension ? cpp_value(space.parameter(*dimension), c[*dimension]) : argument);
  }
  // "a<b<c>>" is fine in C++11 and later, but keep NVRTC's expression unambiguous.
  if (out.back() == '>') out += ' ';
  return out + ">";
}

/// The NVRTC options of a configuration (without the architecture): the fixed defines, every
/// parameter not used as a template argument and not setting the GPU as `-DNAME=VALUE`, then
/// `compiler_options`. Configurations that differ only in GPU settings share one compile.
[[nodiscard]] inline std::vector<std::string> compile_options(const Kernel& kernel,
                                                              const Space& space,
                                                              const Configuration& c) {
  std::vector<std::string> out;
  for (const auto& [name, value] : kernel.defines) out.push_back("-D" + name + "=" + value);
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    const auto& parameter = space.parameter(d);
    if (std::find(kernel.template_arguments.begin(), kernel.template_arguments.end(),
                  parameter.name()) != kernel.template_arguments.end() ||
        is_gpu_setting(parameter.name())) {
      continue;
    }
    out.push_back("-D" + parameter.name() + "=" + cpp_value(parameter, c[d]));
  }
  out.insert(out.end(), kernel.compiler_options.begin(), kernel.compiler_options.end());
  return out;
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_KERNEL_HPP
