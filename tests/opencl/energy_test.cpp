// The OpenCL runner's energy (OpenCLOptions::energy, docs/energy.md): off by default, a meter of
// the user's around the timed runs, RAPL on a CPU device (PoCL in CI), and why there is none.
#include "opencl_device.hpp"
#include "support/fake_powercap.hpp"
#include <aoe/measure/opencl/opencl_runner.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opencl_energy_test {  // apart from this area's other files in a unity build

namespace {

constexpr const char* scale_source = R"(
__kernel void scale(const __global float* x, __global float* y, const int n) {
  const int i = get_global_id(0);
#if MODE == 1
  this is not OpenCL C;
#endif
  if (i < n) y[i] = 2.0f * x[i];
}
)";

constexpr int n = 1024;

aoe::opencl::Kernel scale_kernel() {
  std::vector<float> x(n);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = static_cast<float>(i);
    expected[static_cast<std::size_t>(i)] = 2.0 * i;
  }
  return aoe::opencl::Kernel{
      .source = scale_source,
      .name = "scale",
      .arguments = {x, std::vector<float>(n), std::int32_t{n}},
      .global = [](const aoe::opencl::Params&) { return aoe::opencl::Range(n); },
      .checks = {{.argument = 1, .expected = expected}}};
}

const aoe::Space& scale_space() {
  static const aoe::Space space({aoe::values("MODE", {0, 1})});
  return space;
}

aoe::OpenCLRunner open(const aoe::opencl::DeviceSelection& selection, aoe::OpenCLOptions options) {
  options.build_threads = 1;
  auto r = aoe::OpenCLRunner::open(scale_kernel(), std::move(options), selection);
  REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
  return std::move(*r);
}

}  // namespace

TEST_CASE("OpenCL energy: off by default, and a measurement then has none") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  auto runner = open(*selection, {});
  CHECK_FALSE(runner.measures_energy());
  CHECK(runner.energy_unavailable() == "OpenCLOptions::energy is off");
  const auto m =
      runner.measure(aoe::SpaceView(scale_space()), std::vector<aoe::Configuration>{{0}});
  REQUIRE(m[0].ok());
  CHECK_FALSE(m[0].energy.has_value());
}

TEST_CASE("OpenCL energy from the user's meter: its joules over the runs made, measured") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  // A counter that moves 6 mJ between any two readings.
  auto readings = std::make_shared<int>(0);
  const auto meter = [readings]() -> std::optional<double> { return 10.0 + 6e-3 * (*readings)++; };
  // No window: the runs metered are the warm-up after the checked run (which is the first
  // warm-up run, before the meter is read) and the timed ones: 1 + 3.
  auto runner = open(
      *selection,
      {.warmup = 2, .repetitions = 3, .energy = true, .energy_window = 0, .energy_meter = meter});
  CHECK(runner.measures_energy());
  CHECK(runner.energy_unavailable().empty());
  const auto m =
      runner.measure(aoe::SpaceView(scale_space()), std::vector<aoe::Configuration>{{0}, {1}, {0}});
  REQUIRE(m[0].ok());
  REQUIRE(m[0].energy.has_value());
  CHECK(m[0].energy->kind == aoe::TimingKind::measured);
  CHECK(m[0].energy->joules == doctest::Approx(6e-3 / 4));
  CHECK(m[0].energy->watts > 0);
  CHECK(m[1].status == aoe::Status::compile);  // nothing ran: the meter was not read
  CHECK_FALSE(m[1].energy.has_value());
  REQUIRE(m[2].energy.has_value());
  CHECK(*readings == 4);  // before and after each of the two that ran
  // A meter that cannot be read gives no energy, never a failure.
  auto dead = open(*selection,
                   {.energy = true, .energy_meter = []() -> std::optional<double> { return {}; }});
  const auto d = dead.measure(aoe::SpaceView(scale_space()), std::vector<aoe::Configuration>{{0}});
  CHECK(d[0].ok());
  CHECK_FALSE(d[0].energy.has_value());
}

TEST_CASE("OpenCL energy on a CPU device: the packages' RAPL counters, or why not") {
  const auto selection = aoe::test::opencl_device_or_skip();
  if (!selection) return;
  {
    const aoe::test::FakePowercap rapl("opencl_readable");
    auto runner = open(*selection, {.energy = true, .powercap = rapl.root.string()});
    if (!runner.device().cpu) {
      CHECK_FALSE(runner.measures_energy());
      CHECK(runner.energy_unavailable().find("is not a CPU device") != std::string::npos);
      aoe::test::skip("the OpenCL device is not a CPU: RAPL is not its counter");
      return;
    }
    REQUIRE(runner.measures_energy());
    const auto m =
        runner.measure(aoe::SpaceView(scale_space()), std::vector<aoe::Configuration>{{0}});
    REQUIRE(m[0].ok());
    REQUIRE(m[0].energy.has_value());  // read: the fake counters stand still, so 0 J
    CHECK(m[0].energy->joules == 0.0);
    CHECK(m[0].energy->kind == aoe::TimingKind::measured);
  }
  const aoe::test::FakePowercap rapl("opencl_unreadable");
  std::filesystem::remove(rapl.root / "intel-rapl:1" / "energy_uj");  // root only, say
  auto runner = open(*selection, {.energy = true, .powercap = rapl.root.string()});
  CHECK_FALSE(runner.measures_energy());
  CHECK(runner.energy_unavailable().find("intel-rapl:1/energy_uj is not readable") !=
        std::string::npos);
  const auto m =
      runner.measure(aoe::SpaceView(scale_space()), std::vector<aoe::Configuration>{{0}});
  CHECK(m[0].ok());
  CHECK_FALSE(m[0].energy.has_value());
}

}  // namespace opencl_energy_test
