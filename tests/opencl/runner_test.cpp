// Runner<device::OpenCL> on a real device (PoCL in CI): failures are measurements with the
// right status, and the next configuration is measured normally.
#include "opencl_device.hpp"
#include <aoe/measure/opencl/opencl_runner.hpp>
#include <aoe/space/constraint.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// MODE 0: right; 1: does not compile; 2: a wrong answer.
constexpr const char* vadd_source = R"(
__kernel void vadd(const __global float* a, const __global float* b, __global float* c,
                   const int n) {
  const int i = get_global_id(0);
#if MODE == 1
  this is not OpenCL C;
#endif
  if (i < n) c[i] = a[i] + b[i] + (MODE == 2 ? 1.0f : 0.0f);
}
)";

constexpr int n = 1024;

aoe::opencl::Kernel vadd_kernel() {
  std::vector<float> a(n), b(n);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
    expected[i] = 3.0 * i;
  }
  return aoe::opencl::Kernel{
      .source = vadd_source,
      .name = "vadd",
      .arguments = {a, b, std::vector<float>(n), std::int32_t{n}},
      .global = [](const aoe::opencl::Params&) { return aoe::opencl::Range(n); },
      .local =
          [](const aoe::opencl::Params& p) {
            return aoe::opencl::Range(static_cast<std::size_t>(p["WG"]));
          },
      .checks = {{.argument = 2, .expected = expected}}};
}

aoe::Space vadd_space() {
  return aoe::Space({aoe::values("WG", {4, 8, 8192}), aoe::values("MODE", {0, 1, 2})});
}

aoe::Configuration config(std::uint32_t wg, std::uint32_t mode) { return {wg, mode}; }

}  // namespace

TEST_CASE("build errors, too large work groups and wrong answers are failed measurements") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  auto runner = aoe::OpenCLRunner::open(vadd_kernel(), {.repetitions = 3}, *selection);
  REQUIRE_MESSAGE(runner.has_value(), runner.error().message);
  const aoe::Space space = vadd_space();
  // WG index 0 = 4, 1 = 8, 2 = 8192; MODE index = MODE.
  const std::vector<aoe::Configuration> batch{config(0, 1), config(0, 0), config(2, 0),
                                              config(1, 0), config(1, 2), config(1, 0)};
  const auto m = runner->measure(aoe::SpaceView(space), batch);
  REQUIRE(m.size() == batch.size());

  CHECK(m[0].status == aoe::Status::compile);
  CHECK(m[0].message.find("CL_BUILD_PROGRAM_FAILURE") != std::string::npos);
  CHECK(m[0].message.find("-D MODE=1") != std::string::npos);
  CHECK(m[0].message.size() > 80);  // the build log is in it

  CHECK(m[1].ok());
  CHECK(m[1].samples.size() == 3);
  CHECK(m[1].value > 0);

  CHECK(m[2].status == aoe::Status::runtime);
  CHECK(m[2].message.find("CL_INVALID_WORK_GROUP_SIZE") != std::string::npos);

  CHECK(m[3].ok());
  CHECK(m[4].status == aoe::Status::correctness);
  CHECK(m[4].message.find("1024 of 1024 elements differ") != std::string::npos);
  CHECK(m[5].ok());              // the same program as m[3]: reused
  CHECK(runner->builds() == 5);  // six configurations, the last one's program reused
  CHECK(runner->device().name.size() > 0);
}

TEST_CASE("a run past the time limit is a timeout; the next configuration is fine") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  auto runner =
      aoe::OpenCLRunner::open(vadd_kernel(), {.repetitions = 2, .time_limit = 1e-12}, *selection);
  REQUIRE_MESSAGE(runner.has_value(), runner.error().message);
  const aoe::Space space = vadd_space();
  const std::vector<aoe::Configuration> one{config(0, 0)};
  const auto m = runner->measure(aoe::SpaceView(space), one);
  CHECK(m[0].status == aoe::Status::timeout);
  CHECK(m[0].message.find("over the limit") != std::string::npos);
}

TEST_CASE("a reference kernel computes the expected output") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  auto runner = aoe::OpenCLRunner::open(vadd_kernel(), {}, *selection);
  REQUIRE_MESSAGE(runner.has_value(), runner.error().message);
  aoe::opencl::Kernel reference = vadd_kernel();
  reference.defines = {{"MODE", "0"}};
  reference.local = {};
  const auto out = runner->run_reference(reference, 2);
  REQUIRE_MESSAGE(out.has_value(), out.error().message);
  REQUIRE(out->size() == static_cast<std::size_t>(n));
  CHECK((*out)[10] == doctest::Approx(30.0));
}

TEST_CASE("device selection errors name the variable and list the devices") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  const auto none = aoe::opencl::find_device({.platform = "", .device = "no-such-device-xyz"});
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message.find("AOE_OPENCL_DEVICE='no-such-device-xyz'") != std::string::npos);
  CHECK(none.error().message.find("device 0: ") != std::string::npos);
  const auto bad_platform = aoe::opencl::find_device({.platform = "99", .device = ""});
  REQUIRE_FALSE(bad_platform.has_value());
  CHECK(bad_platform.error().message.find("AOE_OPENCL_PLATFORM='99'") != std::string::npos);
  const auto first = aoe::opencl::find_device({.platform = "0", .device = "0"});
  CHECK(first.has_value());
}

TEST_CASE("a check naming a scalar argument is an error at open") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  aoe::opencl::Kernel k = vadd_kernel();
  k.checks[0].argument = 3;
  const auto runner = aoe::OpenCLRunner::open(std::move(k), {}, *selection);
  REQUIRE_FALSE(runner.has_value());
  CHECK(runner.error().message.find("checks[0].argument = 3 is not a buffer") != std::string::npos);
}
