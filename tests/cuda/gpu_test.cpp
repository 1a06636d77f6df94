// Runner<device::Cuda> on a real NVIDIA GPU through the installed driver (label gpu; skipped,
// and reported so, where there is no driver or no GPU): the whole path that the test double
// stands in for elsewhere, faults included. scripts/gpu-check.sh runs these on the GPU machine.
#include "support/skip.hpp"
#include <aoe/measure/cuda/cuda_runner.hpp>
#include <aoe/measure/cuda/gemm.hpp>
#include <aoe/measure/cuda/gpu_settings.hpp>
#include <aoe/space/parameter.hpp>
#include <aoe/space/space.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cuda_gpu_test {  // apart from this area's other files in a unity build

namespace {

// The GPU to test on, or nullopt after reporting the case as skipped.
std::optional<aoe::cuda::DeviceInfo> gpu_or_skip() {
  auto info = aoe::CudaRunner::probe();
  if (!info) {
    aoe::test::skip("no CUDA GPU: " + info.error().message);
    return std::nullopt;
  }
  return *info;
}

// MODE 0: right; 1: writes through a null pointer (an illegal address); 2: a wrong answer.
constexpr const char* vadd_source = R"(
template <int TPB>
__global__ void vadd(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * TPB + threadIdx.x;
#if MODE == 1
  if (i == 0) *reinterpret_cast<volatile float*>(static_cast<unsigned long long>(0)) = 1.0f;
#endif
  if (i < n) c[i] = a[i] + b[i] + (MODE == 2 ? 1.0f : 0.0f);
}
)";

constexpr int n = 1 << 16;

aoe::cuda::Kernel vadd_kernel() {
  std::vector<float> a(n), b(n);
  std::vector<double> expected(n);
  for (int i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i)] = static_cast<float>(i);
    b[static_cast<std::size_t>(i)] = static_cast<float>(2 * i);
    expected[static_cast<std::size_t>(i)] = 3.0 * i;
  }
  return aoe::cuda::Kernel{
      .source = vadd_source,
      .name = "vadd",
      .template_arguments = {"TPB"},
      .arguments = {a, b, std::vector<float>(n), std::int32_t{n}},
      .grid = [](const aoe::cuda::Params& p) { return aoe::cuda::Range(n / p["TPB"]); },
      .block = [](const aoe::cuda::Params& p) { return aoe::cuda::Range(p["TPB"]); },
      .checks = {{.argument = 2, .expected = expected}}};
}

}  // namespace

TEST_CASE("gpu: a kernel runs, wrong answers and faults are data, the context survives" *
          doctest::test_suite("gpu")) {
  const auto info = gpu_or_skip();
  if (!info) return;
  auto runner = aoe::CudaRunner::open(vadd_kernel(), {.repetitions = 5});
  REQUIRE_MESSAGE(runner.has_value(), (runner ? std::string() : runner.error().message));
  const aoe::Space space({aoe::values("TPB", {128, 2048}), aoe::values("MODE", {0, 1, 2})});
  const auto m =
      runner->measure(aoe::SpaceView(space),
                      std::vector<aoe::Configuration>{{0, 0}, {0, 1}, {0, 0}, {0, 2}, {1, 0}});
  REQUIRE(m.size() == 5);
  CHECK_MESSAGE(m[0].ok(), m[0].message);
  CHECK(m[0].value > 0);
  CHECK(m[0].value < 0.01);
  CHECK(m[0].samples.size() == 5);
  CHECK(m[1].status == aoe::Status::runtime);  // the illegal address
  CHECK(m[1].message.find("the context was replaced") != std::string::npos);
  CHECK_MESSAGE(m[2].ok(), m[2].message);  // the same kernel again, in the new context
  CHECK(m[3].status == aoe::Status::correctness);
  CHECK(m[4].status == aoe::Status::runtime);  // 2048 threads per block
  CHECK(m[4].message.find("too many resources requested for launch") != std::string::npos);
  CHECK(runner->contexts() == 2);
  CHECK(runner->timings()[0].registers > 0);
  MESSAGE(info->key() << ": vadd " << m[0].value * 1e6 << " us; NVML "
                      << (runner->has_gpu_state() ? "present" : "absent"));
}

TEST_CASE("gpu: the project's SGEMM, templated, is right and fast on the GPU" *
          doctest::test_suite("gpu")) {
  const auto info = gpu_or_skip();
  if (!info) return;
  const auto problem = aoe::cuda::gemm_problem(512, 512, 512);
  auto runner = aoe::CudaRunner::open(aoe::cuda::gemm_kernel(problem));
  REQUIRE_MESSAGE(runner.has_value(), (runner ? std::string() : runner.error().message));
  const aoe::Space space = aoe::cuda::gemm_space(512, 512, 512, *info);
  std::vector<aoe::Configuration> sample;
  auto e = space.enumerate();
  aoe::Configuration c;
  for (std::size_t i = 0; e.next(c); ++i) {
    if (i % 97 == 0) sample.push_back(c);
  }
  const auto m = runner->measure(aoe::SpaceView(space), sample);
  std::size_t right = 0;
  double best = 1;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i].ok()) {
      ++right;
      best = std::min(best, m[i].value);
    } else {
      MESSAGE(space.to_string(sample[i]) << ": " << m[i].message);
    }
  }
  CHECK(right == m.size());  // every valid configuration computes the right answer
  MESSAGE(m.size() << " configurations, best " << aoe::cuda::gemm_flops(problem) / best * 1e-9
                   << " GFLOP/s at 512^3");
}

TEST_CASE("gpu: with energy on, a measurement carries NVML's energy per run and its power" *
          doctest::test_suite("gpu")) {
  const auto info = gpu_or_skip();
  if (!info) return;
  const auto problem = aoe::cuda::gemm_problem(1024, 1024, 1024);
  auto runner = aoe::CudaRunner::open(aoe::cuda::gemm_kernel(problem),
                                      {.repetitions = 5, .energy = true, .energy_window = 0.3});
  REQUIRE_MESSAGE(runner.has_value(), (runner ? std::string() : runner.error().message));
  if (!runner->has_gpu_state()) {
    aoe::test::skip("NVML is not available on this machine");
    return;
  }
  const aoe::Space space = aoe::cuda::gemm_space(1024, 1024, 1024, *info);
  std::vector<aoe::Configuration> sample;
  auto e = space.enumerate();
  aoe::Configuration c;
  for (std::size_t i = 0; e.next(c) && sample.size() < 4; ++i) {
    if (i % 211 == 0) sample.push_back(c);
  }
  const auto m = runner->measure(aoe::SpaceView(space), sample);
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!m[i].ok()) continue;
    REQUIRE_MESSAGE(m[i].energy.has_value(), "no energy: the counter needs Volta or later");
    CHECK(m[i].energy->kind == aoe::TimingKind::measured);
    CHECK(m[i].energy->joules > 0);
    // A data-centre GPU busy on a GEMM: between its idle draw and its board limit.
    CHECK(m[i].energy->watts > 20);
    CHECK(m[i].energy->watts < 1200);
    MESSAGE(space.to_string(sample[i])
            << ": " << m[i].value * 1e6 << " us, " << m[i].energy->joules * 1e3 << " mJ, "
            << m[i].energy->watts << " W");
  }
}

TEST_CASE("gpu: NVML's setters open and read the power limit, and nothing is set" *
          doctest::test_suite("gpu")) {
  // A shared GPU must be left as it was found: this case only opens the setters (read-only
  // queries: the limit and its range) and checks that a space with a power-limit parameter is
  // refused without the opt-in. It never applies a setting.
  const auto info = gpu_or_skip();
  if (!info) return;
  const auto api = aoe::cuda::real_nvml_control();
  if (!api) {
    aoe::test::skip("NVML's setters are not available: " + api.error().message);
    return;
  }
  auto settings = aoe::cuda::GpuSettings::open(**api, info->pci_bus_id);
  REQUIRE_MESSAGE(settings.has_value(), (settings ? std::string() : settings.error().message));
  CHECK(settings->min_power_limit_w() > 0);
  CHECK(settings->min_power_limit_w() <= settings->original_power_limit_w());
  CHECK(settings->original_power_limit_w() <= settings->max_power_limit_w());
  MESSAGE("power limit " << settings->original_power_limit_w() << " W, accepted "
                         << settings->min_power_limit_w() << " to " << settings->max_power_limit_w()
                         << " W");
  CHECK(settings->restore().empty());  // nothing was changed, nothing is done
  const auto problem = aoe::cuda::gemm_problem(1024, 1024, 1024);
  auto runner = aoe::CudaRunner::open(aoe::cuda::gemm_kernel(problem), {.repetitions = 1});
  REQUIRE(runner.has_value());
  const aoe::Space space({aoe::values("nvml_pwr_limit", {settings->min_power_limit_w()})});
  const auto m = runner->measure(aoe::SpaceView(space), std::vector<aoe::Configuration>{{0}});
  CHECK(m[0].status == aoe::Status::runtime);
  CHECK(m[0].message.find("CudaOptions::gpu_settings is off") != std::string::npos);
}

}  // namespace cuda_gpu_test
