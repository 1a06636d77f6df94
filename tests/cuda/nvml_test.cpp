// NVML in the CUDA runner against the test doubles of the driver (fake_driver.hpp) and of NVML
// (fake_nvml.hpp), no GPU needed: the energy counter around the timed runs and the GPU's state
// (CudaOptions::energy), and clocks and power limits as tuning parameters
// (CudaOptions::gpu_settings, cuda/gpu_settings.hpp): refused without the opt-in, applied per
// configuration with it, values the GPU refuses as failures, and what was found put back.
#include "fake_driver.hpp"
#include "fake_nvml.hpp"
#include "support/skip.hpp"
#include <aoe/measure/cuda/cuda_runner.hpp>
#include <aoe/measure/cuda/gpu_settings.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuda_nvml_test {  // apart from this area's other files in a unity build

namespace {

constexpr const char* copy_source = R"(
__global__ void copy(const float* x, float* y, int n) {
  const int i = blockIdx.x * TPB + threadIdx.x;
  if (i < n) y[i] = x[i];
}
)";

constexpr int n = 256;

aoe::cuda::Kernel copy_kernel() {
  std::vector<float> x(n);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = static_cast<float>(i);
    expected[static_cast<std::size_t>(i)] = i;
  }
  return aoe::cuda::Kernel{
      .source = copy_source,
      .name = "copy",
      .arguments = {x, std::vector<float>(n), std::int32_t{n}},
      .grid = [](const aoe::cuda::Params& p) { return aoe::cuda::Range(n / p["TPB"]); },
      .block = [](const aoe::cuda::Params& p) { return aoe::cuda::Range(p["TPB"]); },
      .checks = {{.argument = 1, .expected = expected}}};
}

// The fake GPU copies, taking longer at a lower power limit: 1 ms at 700 W.
CUresult emulate(const aoe::test::FakeLaunch& l, double& seconds) {
  const float* x = l.buffer<float>(0);
  float* y = l.buffer<float>(1);
  for (int i = 0; i < l.arg<std::int32_t>(2); ++i) y[i] = x[i];
  seconds = 1e-3 * 700'000.0 / aoe::test::fake_nvml()->limit_mw;
  return CUDA_SUCCESS;
}

aoe::CudaRunner open(aoe::CudaOptions options) {
  options.compile_threads = 1;
  options.repetitions = 3;
  auto r = aoe::CudaRunner::open_with(aoe::test::fake_driver(), copy_kernel(), std::move(options),
                                      {}, {.control = &aoe::test::fake_nvml_control()});
  REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
  return std::move(*r);
}

// TPB, then the power limit (W) and the SM clock (MHz) as Kernel Tuner names them.
aoe::Space settings_space() {
  return aoe::Space({aoe::values("TPB", {64, 128}), aoe::values("nvml_pwr_limit", {350, 700}),
                     aoe::values("nvml_gr_clock", {1410, 1980})});
}

}  // namespace

TEST_CASE("GPU settings: a configuration's clocks and power limit, read from its parameters") {
  const aoe::Space space = settings_space();
  const auto request = aoe::cuda::gpu_settings_of(space, {1, 0, 1});
  REQUIRE(request.has_value());
  CHECK(request->power_limit_w == 350.0);
  CHECK(request->sm_clock_mhz == 1980u);
  CHECK_FALSE(request->memory_clock_mhz.has_value());
  CHECK(aoe::cuda::gpu_setting_parameter(space) == "nvml_pwr_limit");
  CHECK_FALSE(aoe::cuda::gpu_setting_parameter(aoe::Space({aoe::values("TPB", {64})})));
  // They reach NVML, never the compiler: configurations differing in them compile alike.
  const auto kernel = copy_kernel();
  CHECK(aoe::cuda::compile_options(kernel, space, {1, 0, 1}) ==
        std::vector<std::string>{"-DTPB=128"});
  CHECK(aoe::cuda::compile_options(kernel, space, {1, 1, 0}) ==
        aoe::cuda::compile_options(kernel, space, {1, 0, 1}));
  const aoe::Space bad({aoe::values("nvml_pwr_limit", {-5})});
  const auto refused = aoe::cuda::gpu_settings_of(bad, {0});
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().message ==
        "parameter 'nvml_pwr_limit' = -5: expected a positive number of watts, at most 1000000");
  const aoe::Space fast({aoe::values("nvml_gr_clock", {2000000})});
  const auto too_fast = aoe::cuda::gpu_settings_of(fast, {0});
  REQUIRE_FALSE(too_fast.has_value());
  CHECK(too_fast.error().message ==
        "parameter 'nvml_gr_clock' = 2000000: expected a positive number of MHz, at most 1000000");
}

TEST_CASE("GPU settings: applied only where they change, refused values named, found ones back") {
  aoe::test::FakeNvml nvml;
  const aoe::test::FakeNvmlScope scope(nvml);
  {
    auto opened = aoe::cuda::GpuSettings::open(aoe::test::fake_nvml_control(), nvml.bus_id);
    REQUIRE(opened.has_value());
    aoe::cuda::GpuSettings settings = std::move(*opened);
    CHECK(settings.original_power_limit_w() == 700.0);
    CHECK(settings.min_power_limit_w() == 200.0);
    CHECK_FALSE(settings.apply({.sm_clock_mhz = 1410, .power_limit_w = 300.0}));
    CHECK(nvml.calls == std::vector<std::string>{"limit 300000", "sm 1410"});
    CHECK_FALSE(settings.apply({.sm_clock_mhz = 1410, .power_limit_w = 300.0}));  // no change
    CHECK(nvml.calls.size() == 2);
    const auto high = settings.apply({.power_limit_w = 900.0});
    REQUIRE(high.has_value());
    CHECK(*high == "nvml_pwr_limit = 900 W: outside the range this GPU accepts, 200 to 700 W");
    CHECK(nvml.limit_mw == 300'000);  // unchanged
    const auto clock = settings.apply({.sm_clock_mhz = 1234});
    REQUIRE(clock.has_value());
    CHECK(*clock == "nvml_gr_clock = 1234 MHz: nvmlDeviceSetGpuLockedClocks: Invalid Argument");
    CHECK(settings.restore().empty());
    CHECK(nvml.limit_mw == 700'000);
    CHECK_FALSE(nvml.sm_locked.has_value());
    nvml.calls.clear();
    CHECK(settings.restore().empty());  // nothing changed since: nothing done
    CHECK(nvml.calls.empty());
    CHECK_FALSE(settings.apply({.memory_clock_mhz = 2619}));
    CHECK(nvml.memory_locked == 2619u);
  }
  // Destroyed: the memory clock it locked is unlocked, and NVML is shut down.
  CHECK_FALSE(nvml.memory_locked.has_value());
  CHECK(nvml.open_handles == 0);
  // Without permission: NVML's reason and what it takes.
  nvml.root = false;
  auto settings = aoe::cuda::GpuSettings::open(aoe::test::fake_nvml_control(), nvml.bus_id);
  REQUIRE(settings.has_value());
  const auto denied = settings->apply({.power_limit_w = 300.0});
  REQUIRE(denied.has_value());
  CHECK(denied->find("Insufficient Permissions (setting clocks and power limits needs root)") !=
        std::string::npos);
  const auto nowhere = aoe::cuda::GpuSettings::open(aoe::test::fake_nvml_control(), "0000:ff:00.0");
  REQUIRE_FALSE(nowhere.has_value());
  CHECK(nowhere.error().message.find("no device at PCI bus id 0000:ff:00.0") != std::string::npos);
}

TEST_CASE("the CUDA runner refuses clock and power-limit parameters unless the user opts in") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  const aoe::test::FakeGpuScope gpu_scope(gpu);
  aoe::test::FakeNvml nvml;
  const aoe::test::FakeNvmlScope nvml_scope(nvml);
  const aoe::Space space = settings_space();
  auto runner = open({});
  const auto m = runner.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{{0, 0, 0}});
  REQUIRE(m.size() == 1);
  CHECK(m[0].status == aoe::Status::runtime);
  CHECK(m[0].message.find("parameter 'nvml_pwr_limit' sets the GPU's clocks or power limit, and "
                          "CudaOptions::gpu_settings is off") != std::string::npos);
  CHECK(gpu.launches == 0);  // nothing ran, nothing was set
  CHECK(nvml.calls.empty());
  CHECK(nvml.open_handles == 0);
  CHECK(runner.gpu_settings() == nullptr);
  // A space without such parameters measures as ever, the opt-in or not.
  const aoe::Space plain({aoe::values("TPB", {64})});
  CHECK(runner.measure(aoe::SpaceView(plain), std::vector<aoe::Configuration>{{0}})[0].ok());
}

TEST_CASE("opted in, each configuration runs at its power limit and clock; the runner puts back") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  const aoe::test::FakeGpuScope gpu_scope(gpu);
  aoe::test::FakeNvml nvml;
  nvml.limit_mw = 600'000;  // what the user's GPU was found at
  const aoe::test::FakeNvmlScope nvml_scope(nvml);
  const aoe::Space space = settings_space();
  {
    auto runner = open({.gpu_settings = true});
    const std::vector<aoe::Configuration> batch{{0, 0, 0}, {0, 1, 0}, {1, 1, 1}};
    const auto m = runner.measure(aoe::SpaceView(space), batch);
    REQUIRE(m.size() == 3);
    for (const auto& x : m) REQUIRE_MESSAGE(x.ok(), x.message);
    CHECK(m[0].value == doctest::Approx(2e-3));  // at 350 W
    CHECK(m[1].value == doctest::Approx(1e-3));  // at 700 W
    CHECK(nvml.calls ==
          std::vector<std::string>{"limit 350000", "sm 1410", "limit 700000", "sm 1980"});
    CHECK(runner.compiles() == 2);  // one per TPB: the settings are not compiled in
    REQUIRE(runner.gpu_settings() != nullptr);
    CHECK(runner.gpu_settings()->original_power_limit_w() == 600.0);
    CHECK(runner.gpu_settings()->current().power_limit_w == 700.0);
    // A clock the GPU refuses fails that configuration alone, as a launch it refuses does.
    const aoe::Space odd({aoe::values("TPB", {64}), aoe::values("nvml_gr_clock", {1234, 1095})});
    const auto r =
        runner.measure(aoe::SpaceView(odd), std::vector<aoe::Configuration>{{0, 0}, {0, 1}});
    CHECK(r[0].status == aoe::Status::runtime);
    CHECK(r[0].message.find("nvml_gr_clock = 1234 MHz") != std::string::npos);
    CHECK(r[1].ok());
    CHECK(nvml.sm_locked == 1095u);
  }
  // The runner is gone: the power limit it was found at, the clocks unlocked, NVML closed.
  CHECK(nvml.limit_mw == 600'000);
  CHECK_FALSE(nvml.sm_locked.has_value());
  CHECK(nvml.open_handles == 0);
  CHECK(gpu.contexts_destroyed == gpu.contexts_created);
}

TEST_CASE("opted in where NVML cannot set anything: every configuration says why") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  const aoe::test::FakeGpuScope gpu_scope(gpu);
  const aoe::Space space({aoe::values("TPB", {64}), aoe::values("nvml_pwr_limit", {300})});
  // The installed NVML: none on a machine without NVIDIA's driver (this one, in CI).
  if (aoe::cuda::real_nvml_control()) {
    aoe::test::skip("NVML is installed here (gpu_test.cpp opens it on the GPU)");
    return;
  }
  auto r = aoe::CudaRunner::open_with(aoe::test::fake_driver(), copy_kernel(),
                                      {.compile_threads = 1, .gpu_settings = true});
  REQUIRE(r.has_value());
  const auto m = r->measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{{0}});
  CHECK(m[0].status == aoe::Status::runtime);
  CHECK(m[0].message.find("parameter 'nvml_pwr_limit': no NVML: libnvidia-ml.so.1") !=
        std::string::npos);
  CHECK(gpu.launches == 0);
}

TEST_CASE("CUDA energy: NVML's counter around the timed runs, per run, measured; off: none") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;  // 1 ms per run at 700 W's limit, the fake's initial one
  const aoe::test::FakeGpuScope gpu_scope(gpu);
  aoe::test::FakeNvml nvml;
  nvml.watts = 250;
  const aoe::test::FakeNvmlScope nvml_scope(nvml);
  const aoe::Space space({aoe::values("TPB", {64, 128})});
  const auto open_on_fake = [](aoe::CudaOptions options) {
    options.compile_threads = 1;
    options.repetitions = 3;
    auto r = aoe::CudaRunner::open_with(aoe::test::fake_driver(), copy_kernel(), std::move(options),
                                        {}, aoe::test::fake_nvml_apis());
    REQUIRE(r.has_value());
    return std::move(*r);
  };
  {
    // No window: the runs metered are the timed ones (the checked run is the warm-up).
    auto runner = open_on_fake({.energy = true, .energy_window = 0});
    CHECK(runner.has_gpu_state());
    const auto m = runner.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{{0}, {1}});
    for (const auto& x : m) {
      REQUIRE(x.ok());
      REQUIRE(x.energy.has_value());
      CHECK(x.energy->kind == aoe::TimingKind::measured);
      // 250 W x 1 ms per run, read in whole millijoules.
      CHECK(x.energy->joules == doctest::Approx(0.25).epsilon(0.01));
      CHECK(x.energy->watts > 0);
    }
    // The state read after the runs: NVML's clock, temperature and board power.
    const auto& state = runner.timings()[0].state;
    CHECK(state.sm_clock_mhz == 1755.0);
    CHECK_FALSE(state.memory_clock_mhz.has_value());  // the query the fake does not support
    CHECK(state.temperature_c == 41.0);
    CHECK(state.power_w == 250.0);
  }
  {
    auto off = open_on_fake({});
    const auto m = off.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{{0}});
    REQUIRE(m[0].ok());
    CHECK_FALSE(m[0].energy.has_value());
  }
  // A GPU without the counter (before Volta): no energy, never a failure.
  nvml.energy_counter = false;
  auto old = open_on_fake({.energy = true, .energy_window = 0});
  const auto m = old.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{{0}});
  REQUIRE(m[0].ok());
  CHECK_FALSE(m[0].energy.has_value());
}

}  // namespace cuda_nvml_test
