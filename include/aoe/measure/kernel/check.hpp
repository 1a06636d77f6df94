// Verification of a kernel's outputs against a reference, shared by the OpenCL and CUDA
// runners: a wrong answer is the status `correctness`, never a winner.
#ifndef AOE_MEASURE_KERNEL_CHECK_HPP
#define AOE_MEASURE_KERNEL_CHECK_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/kernel/argument.hpp"
#include "aoe/vocab/measurement.hpp"

#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace aoe::kernel {

/// Checks an output buffer after a run: element i must be within
/// `absolute + relative * |expected[i]|` of `expected[i]` (Kernel Tuner's verification).
struct Check {
  std::size_t argument = 0;        ///< index of a buffer argument
  std::vector<double> expected{};  ///< as many elements as that buffer
  double absolute = 1e-5;
  double relative = 1e-4;
};

/// Whether every check names a buffer argument of the right size; the error names the kernel,
/// the check (`checks[i]`) and what is wrong.
[[nodiscard]] inline std::optional<ErrorInfo> validate_checks(
    const std::string& kernel_name, const std::vector<Argument>& arguments,
    const std::vector<Check>& checks) {
  for (std::size_t c = 0; c < checks.size(); ++c) {
    const auto& check = checks[c];
    const std::string where = "kernel '" + kernel_name + "': checks[" + std::to_string(c) + "]";
    if (check.argument >= arguments.size() || !is_buffer(arguments[check.argument])) {
      return make_error(
          Errc::invalid_argument,
          where + ".argument = " + std::to_string(check.argument) + " is not a buffer argument");
    }
    const std::size_t n = element_count(arguments[check.argument]);
    if (check.expected.size() != n) {
      return make_error(Errc::invalid_argument,
                        where + ".expected has " + std::to_string(check.expected.size()) +
                            " elements; argument " + std::to_string(check.argument) + " has " +
                            std::to_string(n));
    }
  }
  return std::nullopt;
}

/// Reads a buffer argument back from the device into `out`; returns an empty string on success,
/// else what failed (e.g. the driver's error name).
using ReadBack = std::function<std::string(std::size_t argument, std::vector<double>& out)>;

/// Runs every check: nullopt when all outputs are right; else a failed measurement (`runtime`
/// when an output could not be read, `correctness` when one is wrong, naming the first wrong
/// element).
[[nodiscard]] inline std::optional<Measurement> verify_outputs(const std::vector<Check>& checks,
                                                               const ReadBack& read) {
  for (const auto& check : checks) {
    std::vector<double> got;
    if (std::string err = read(check.argument, got); !err.empty()) {
      return Measurement::failure(
          Status::runtime, "reading argument " + std::to_string(check.argument) + ": " + err);
    }
    std::size_t wrong = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double e = check.expected[i];
      const double tolerance = check.absolute + check.relative * std::abs(e);
      if (!(std::abs(got[i] - e) <= tolerance)) {
        if (wrong++ == 0) first = i;
      }
    }
    if (wrong > 0) {
      return Measurement::failure(
          Status::correctness, "verification failed: argument " + std::to_string(check.argument) +
                                   ": " + std::to_string(wrong) + " of " +
                                   std::to_string(got.size()) + " elements differ; element " +
                                   std::to_string(first) + " is " + std::to_string(got[first]) +
                                   ", expected " + std::to_string(check.expected[first]));
    }
  }
  return std::nullopt;
}

}  // namespace aoe::kernel

#endif  // AOE_MEASURE_KERNEL_CHECK_HPP
