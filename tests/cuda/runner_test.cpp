// Runner<device::Cuda> against the test double of the driver API (fake_driver.hpp) with real
// NVRTC compiles: the launch path, failures as data, a poisoned context replaced, device limits
// and selection, NVML absent. No GPU needed.
#include "fake_driver.hpp"
#include <aoe/measure/cuda/cuda_runner.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/search/grid_search.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuda_runner_test {  // apart from this area's other files in a unity build

namespace {

// y = SCALE * x (+1 when MODE == 2); MODE == 1 does not compile. SCALE is a template argument,
// TPB (threads per block) and MODE are macros.
constexpr const char* scale_source = R"(
template <int SCALE>
__global__ void scale(const float* x, float* y, int n) {
  const int i = blockIdx.x * TPB + threadIdx.x;
#if MODE == 1
  this is not CUDA;
#endif
  if (i < n) y[i] = SCALE * x[i] + (MODE == 2 ? 1.0f : 0.0f);
}
)";

constexpr int n = 256;

aoe::cuda::Kernel scale_kernel() {
  std::vector<float> x(n);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = static_cast<float>(i);
    expected[static_cast<std::size_t>(i)] = 2.0 * i;
  }
  return aoe::cuda::Kernel{
      .source = scale_source,
      .name = "scale",
      .template_arguments = {"SCALE"},
      .arguments = {x, std::vector<float>(n), std::int32_t{n}},
      .grid = [](const aoe::cuda::Params& p) { return aoe::cuda::Range(n / p["TPB"]); },
      .block = [](const aoe::cuda::Params& p) { return aoe::cuda::Range(p["TPB"]); },
      .checks = {{.argument = 1, .expected = expected}}};
}

aoe::Space scale_space() {
  return aoe::Space({aoe::values("TPB", {32, 64, 128}), aoe::values("SCALE", {2, 3, 5}),
                     aoe::values("MODE", {0, 1, 2})});
}

// The scale value a launch's lowered name carries (_Z5scaleILi2EEvPKfPfi: 2).
int scale_of(const std::string& lowered) {
  const auto at = lowered.find("ILi");
  return at == std::string::npos ? 0 : std::stoi(lowered.substr(at + 3));
}

// Emulates the kernel: y = SCALE * x; a block of TPB threads takes 1 ms * 32 / TPB; SCALE 5
// writes out of bounds (an illegal address).
CUresult emulate(const aoe::test::FakeLaunch& l, double& seconds) {
  const int s = scale_of(l.function);
  if (s == 5) return CUDA_ERROR_ILLEGAL_ADDRESS;
  const float* x = l.buffer<float>(0);
  float* y = l.buffer<float>(1);
  const int count = l.arg<std::int32_t>(2);
  for (int i = 0; i < count; ++i) y[i] = static_cast<float>(s) * x[i];
  seconds = 1e-3 * 32.0 / l.block[0];
  return CUDA_SUCCESS;
}

aoe::CudaRunner open(aoe::CudaOptions options = {.compile_threads = 2}) {
  auto r = aoe::CudaRunner::open_with(aoe::test::fake_driver(), scale_kernel(), std::move(options));
  REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
  return std::move(*r);
}

// TPB, SCALE, MODE as level indices.
aoe::Configuration config(std::uint32_t tpb, std::uint32_t scale, std::uint32_t mode) {
  return {tpb, scale, mode};
}

}  // namespace

TEST_CASE("a CUDA kernel's template arguments and -D macros in one space") {
  const aoe::Space space = scale_space();
  const auto kernel = scale_kernel();
  const auto c = config(1, 0, 2);  // TPB 64, SCALE 2, MODE 2
  CHECK(aoe::cuda::name_expression(kernel, space, c) == "scale<2>");
  CHECK(aoe::cuda::compile_options(kernel, space, c) ==
        std::vector<std::string>{"-DTPB=64", "-DMODE=2"});
  // A flag is true/false, fixed text is copied, a trailing '>' is kept apart.
  aoe::cuda::Kernel k{.name = "f", .template_arguments = {"float", "ON", "std::array<int, 2>"}};
  const aoe::Space flags({aoe::flag("ON")});
  CHECK(aoe::cuda::name_expression(k, flags, {1}) == "f<float, true, std::array<int, 2> >");
  CHECK(aoe::cuda::compile_options(k, flags, {0}).empty());
}

TEST_CASE("NVRTC compiles a template instance and names its lowered symbol, with no GPU") {
  const auto ok = aoe::cuda::compile(scale_source, "scale<3>", {"-DTPB=64", "-DMODE=0"}, "sm_90");
  REQUIRE_MESSAGE(ok.ok, ok.message);
  CHECK(ok.lowered_name == "_Z5scaleILi3EEvPKfPfi");
  CHECK(!ok.ptx);
  CHECK(ok.image.size() > 100);
  CHECK(ok.seconds > 0);
  const auto bad = aoe::cuda::compile(scale_source, "scale<3>", {"-DTPB=64", "-DMODE=1"}, "sm_90");
  CHECK(!bad.ok);
  CHECK(bad.message.find("NVRTC_ERROR_COMPILATION") != std::string::npos);
  CHECK(bad.message.find("this is not CUDA") != std::string::npos);  // the log, with the line
  CHECK(bad.image.empty());
  // A device newer than NVRTC knows gets PTX of the newest architecture it knows.
  CHECK(aoe::cuda::target_architecture(9, 0) == "sm_90");
  CHECK(aoe::cuda::target_architecture(99, 9).rfind("compute_", 0) == 0);
}

TEST_CASE("the fake GPU: right answers are timed by events, failures are measurements") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  gpu.function_max_threads = 64;  // the compiled kernel's limit: TPB 128 is refused
  const aoe::test::FakeGpuScope scope(gpu);
  {
    auto runner = open({.repetitions = 5, .compile_threads = 2});
    CHECK(runner.device().key() == "Fake NVIDIA H100 (sm_90)");
    CHECK(runner.architecture() == "sm_90");
    const aoe::Space space = scale_space();
    const std::vector<aoe::Configuration> batch{
        config(0, 0, 0),  // right: 1 ms
        config(1, 0, 0),  // right: 0.5 ms
        config(0, 0, 1),  // does not compile
        config(0, 1, 0),  // SCALE 3: a wrong answer
        config(2, 0, 0),  // 128 threads: over the compiled kernel's 64
        config(0, 0, 2),  // MODE 2 compiles, but the fake computes SCALE * x: right
    };
    const int launches_before = gpu.launches;
    const auto m = runner.measure(aoe::SpaceView(space), batch);
    REQUIRE(m.size() == batch.size());
    CHECK(m[0].ok());
    CHECK(m[0].value == doctest::Approx(1e-3).epsilon(1e-4));
    CHECK(m[0].samples.size() == 5);
    CHECK(m[1].ok());
    CHECK(m[1].value == doctest::Approx(0.5e-3).epsilon(1e-4));
    CHECK(m[2].status == aoe::Status::compile);
    CHECK(m[2].message.find("this is not CUDA") != std::string::npos);
    CHECK(m[3].status == aoe::Status::correctness);
    CHECK(m[3].message.find("element 1 is 3") != std::string::npos);
    CHECK(m[4].status == aoe::Status::runtime);
    CHECK(m[4].message.find("too many resources requested for launch") != std::string::npos);
    CHECK(m[4].message.find("allows at most 64") != std::string::npos);
    CHECK(m[5].ok());
    // Launches: the checked run (the warm-up) plus 5 timed runs for each of the 3 right ones,
    // the checked run alone for the wrong one, none for the refused and the uncompiled ones.
    CHECK(gpu.launches - launches_before == 3 * 6 + 1);
    CHECK(gpu.functions_asked.front() == "_Z5scaleILi2EEvPKfPfi");
    // Compiled once per distinct (template arguments, macros); measured again: reused.
    CHECK(runner.compiles() == 6);
    (void)runner.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{config(0, 0, 0)});
    CHECK(runner.compiles() == 6);
    CHECK(gpu.modules_loaded == 5);  // the uncompiled one has no module
    CHECK(runner.timings().size() == 1);
    CHECK(runner.timings()[0].registers == 32);
    CHECK(runner.contexts() == 1);
    CHECK_FALSE(runner.timings()[0].state.sm_clock_mhz.has_value());  // no NVML here
  }
  CHECK(gpu.live_allocations == 0);  // the runner freed what it allocated
  CHECK(gpu.contexts_destroyed == gpu.contexts_created);
}

TEST_CASE("an illegal address poisons the context: a new one, and the next configuration runs") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  const aoe::test::FakeGpuScope scope(gpu);
  {
    auto runner = open();
    const aoe::Space space = scale_space();
    const auto m = runner.measure(
        aoe::SpaceView(space), std::vector<aoe::Configuration>{config(0, 2, 0), config(0, 0, 0),
                                                               config(0, 2, 0), config(1, 0, 0)});
    CHECK(m[0].status == aoe::Status::runtime);
    CHECK(m[0].message.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);
    CHECK(m[0].message.find("the context was replaced") != std::string::npos);
    CHECK(m[1].ok());  // in the new context: buffers and modules made again
    CHECK(m[2].status == aoe::Status::runtime);
    CHECK(m[3].ok());
    CHECK(runner.contexts() == 3);
    CHECK(gpu.contexts_created == 3);
  }
  CHECK(gpu.live_allocations == 0);
}

TEST_CASE("time limits, the L2 flush and the objective") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  const aoe::test::FakeGpuScope scope(gpu);
  const aoe::Space space = scale_space();
  {
    // 1 ms per run at TPB 32, over a 0.5 ms limit.
    auto runner = open({.time_limit = 0.5e-3});
    const auto m =
        runner.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{config(0, 0, 0)});
    CHECK(m[0].status == aoe::Status::timeout);
  }
  {
    auto runner = open({.repetitions = 3, .flush_l2 = true});
    const auto memsets = gpu.memsets;
    const auto m =
        runner.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{config(1, 0, 0)});
    CHECK(m[0].ok());
    CHECK(gpu.memsets - memsets == 3);  // before each timed run, not before the checked one
  }
  {
    aoe::CudaOptions options;
    options.objective = [](double seconds, const aoe::cuda::Params& p) {
      return -static_cast<double>(n) / seconds * static_cast<double>(p["SCALE"] > 0);
    };
    auto runner = open(std::move(options));
    const auto m =
        runner.measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{config(1, 0, 0)});
    CHECK(m[0].value == doctest::Approx(-n / 0.5e-3).epsilon(1e-4));
    CHECK(runner.best() == doctest::Approx(0.5e-3).epsilon(1e-4));
  }
}

TEST_CASE("device selection by ordinal or name, and errors that say what exists") {
  aoe::test::FakeGpu gpu;
  gpu.names = {"Fake NVIDIA A100", "Fake NVIDIA H100"};
  const aoe::test::FakeGpuScope scope(gpu);
  const auto& api = aoe::test::fake_driver();
  CHECK(aoe::cuda::find_device(api, {})->name == "Fake NVIDIA A100");
  CHECK(aoe::cuda::find_device(api, {"1"})->ordinal == 1);
  CHECK(aoe::cuda::find_device(api, {"h100"})->name == "Fake NVIDIA H100");
  const auto missing = aoe::cuda::find_device(api, {"v100"});
  REQUIRE(!missing);
  CHECK(missing.error().message.find("AOE_CUDA_DEVICE='v100'") != std::string::npos);
  CHECK(missing.error().message.find("device 1: Fake NVIDIA H100 (sm_90)") != std::string::npos);
  CHECK(aoe::cuda::find_device(api, {"7"}).error().message.find("there are 2 devices") !=
        std::string::npos);
  gpu.init_fails = true;
  CHECK(aoe::cuda::find_device(api, {}).error().code == aoe::make_error_code(aoe::Errc::not_found));
  gpu.init_fails = false;
  gpu.names.clear();
  CHECK(aoe::cuda::find_device(api, {}).error().message.find("no device") != std::string::npos);
}

TEST_CASE("a kernel description that cannot work is refused when the runner opens") {
  aoe::test::FakeGpu gpu;
  const aoe::test::FakeGpuScope scope(gpu);
  auto k = scale_kernel();
  k.checks[0].argument = 2;  // a scalar
  auto r = aoe::CudaRunner::open_with(aoe::test::fake_driver(), k);
  REQUIRE(!r);
  CHECK(r.error().message.find("checks[0].argument = 2 is not a buffer argument") !=
        std::string::npos);
  k = scale_kernel();
  k.block = {};
  CHECK(aoe::CudaRunner::open_with(aoe::test::fake_driver(), k).error().message.find("no block") !=
        std::string::npos);
  CHECK(gpu.live_allocations == 0);
}

TEST_CASE("a Tuner tunes a CUDA kernel, and a recording keeps the compile times") {
  aoe::test::FakeGpu gpu;
  gpu.kernel = emulate;
  const aoe::test::FakeGpuScope scope(gpu);
  const aoe::Space space = scale_space();
  {
    auto runner = open();
    const aoe::TuningKey key{"scale/256", runner.device().key()};
    aoe::Tuner<aoe::GridSearch, aoe::CudaRunner, aoe::MemoryRepository> tuner(
        aoe::GridSearch{}, std::move(runner), aoe::TunerOptions{.seed = 1, .batch_size = 9});
    const auto result = tuner.tune(space, key, aoe::MaxEvaluations{27});
    REQUIRE(result.found());
    // The fastest right one: TPB 128, SCALE 2, MODE 0 or 2.
    CHECK(space.parameter(0).level((*result.best_configuration)[0]).as_integer() == 128);
    CHECK((*result.best_configuration)[1] == 0);
    CHECK(result.count(aoe::Status::compile) == 9);
  }
  {
    auto runner = open();
    const std::vector<aoe::Configuration> all{config(0, 0, 0), config(0, 0, 1), config(2, 1, 0)};
    const auto recording = aoe::replay::record(runner, space, all, {.batch = 3});
    CHECK(recording.configurations() == 3);
    CHECK(recording.valid_configurations() == 1);
  }
}

}  // namespace cuda_runner_test
