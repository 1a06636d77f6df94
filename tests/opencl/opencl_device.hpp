// The OpenCL tests' device: the one AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE choose, or none,
// in which case the test prints AOE_TEST_SKIPPED (ctest reports it as skipped) and returns.
#ifndef AOE_TESTS_OPENCL_OPENCL_DEVICE_HPP
#define AOE_TESTS_OPENCL_OPENCL_DEVICE_HPP

#include <aoe/measure/opencl/device.hpp>
#include <aoe/measure/opencl/opencl_runner.hpp>

#include <cstdio>
#include <optional>
#include <string>

namespace aoe::test {

/// The device to test on, or nullopt after reporting the test as skipped.
inline std::optional<opencl::DeviceSelection> opencl_device_or_skip() {
  const auto selection = OpenCLRunner::default_selection();
  const auto device = opencl::find_device(selection);
  if (!device) {
    // cmake/AoeTesting.cmake: SKIP_REGULAR_EXPRESSION AOE_TEST_SKIPPED.
    std::printf("AOE_TEST_SKIPPED: no OpenCL device: %s\n", device.error().message.c_str());
    return std::nullopt;
  }
  return selection;
}

}  // namespace aoe::test

#endif  // AOE_TESTS_OPENCL_OPENCL_DEVICE_HPP
