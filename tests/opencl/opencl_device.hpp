// The OpenCL tests' device: the one AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE choose, or none,
// in which case the test case is skipped (support/skip.hpp: ctest and Meson report it so).
#ifndef AOE_TESTS_OPENCL_OPENCL_DEVICE_HPP
#define AOE_TESTS_OPENCL_OPENCL_DEVICE_HPP

#include "support/skip.hpp"
#include <aoe/measure/opencl/device.hpp>
#include <aoe/measure/opencl/opencl_runner.hpp>

#include <optional>
#include <string>

namespace aoe::test {

/// The device to test on, or nullopt after reporting the test as skipped.
inline std::optional<opencl::DeviceSelection> opencl_device_or_skip() {
  const auto selection = OpenCLRunner::default_selection();
  const auto device = opencl::find_device(selection);
  if (!device) {
    skip("no OpenCL device: " + device.error().message);
    return std::nullopt;
  }
  return selection;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_OPENCL_OPENCL_DEVICE_HPP
