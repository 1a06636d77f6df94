// Tunes the project's tiled SGEMM (aoe/measure/opencl/gemm.hpp: work-group tile, work-items,
// vector width, local-memory caching of A and B, unrolling, as CLBlast's Xgemm) on an OpenCL
// device with each search policy, and reports each one's best GFLOP/s.
//
//   aoe_example_opencl_gemm [--size N] [--evaluations E] [--require-gpu]
//
// The device is AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE (docs/opencl.md); --require-gpu picks
// the first GPU and exits with 77 (skipped) when there is none. Without any OpenCL device it
// exits with 77 too. Every measured configuration is checked against a host reference: a wrong
// answer is never a winner.
#include <aoe/opencl.hpp>
#include <aoe/search/by_name.hpp>
#include <aoe/search/search_names.hpp>
#include <aoe/tuner/memory_repository.hpp>
#include <aoe/tuner/stop_conditions.hpp>
#include <aoe/tuner/tuner.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  std::int64_t n = 128;
  std::size_t evaluations = 20;
  bool require_gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      n = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--evaluations") == 0 && i + 1 < argc) {
      evaluations = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else if (std::strcmp(argv[i], "--require-gpu") == 0) {
      require_gpu = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--size N (multiple of 16)] [--evaluations E] [--require-gpu]\n",
                   argv[0]);
      return 2;
    }
  }
  if (n < 16 || n % 16 != 0 || evaluations == 0) {
    std::fprintf(stderr, "--size must be a positive multiple of 16, --evaluations positive\n");
    return 2;
  }

  // --- The device --------------------------------------------------------------------------
  aoe::opencl::DeviceSelection selection = aoe::OpenCLRunner::default_selection();
  if (require_gpu) {
    auto all = aoe::opencl::list_devices();
    bool found = false;
    for (std::size_t p = 0; all && p < all->size() && !found; ++p) {
      for (std::size_t d = 0; d < (*all)[p].size() && !found; ++d) {
        if (aoe::opencl::describe((*all)[p][d]).gpu) {
          selection = {std::to_string(p), std::to_string(d)};
          found = true;
        }
      }
    }
    if (!found) {
      std::printf("no OpenCL GPU: skipped\n");
      return 77;
    }
  }
  const auto device = aoe::opencl::find_device(selection);
  if (!device) {
    std::printf("skipped: %s\n", device.error().message.c_str());
    return 77;
  }
  const aoe::opencl::DeviceInfo info = aoe::opencl::describe(*device);

  // --- The kernel, its space and its reference ---------------------------------------------
  const auto problem = aoe::opencl::gemm_problem(n, n, n);
  const aoe::Space space = aoe::opencl::gemm_space(n, n, n, info);
  const double flops = aoe::opencl::gemm_flops(problem);
  std::printf("device: %s (%s)\nSGEMM %lld^3: %.0f raw, %.0f valid configurations\n",
              info.name.c_str(), info.platform.c_str(), static_cast<long long>(n), space.size().raw,
              space.size().valid);

  // --- Each policy, the same budget ----------------------------------------------------------
  for (const auto name : aoe::search_names()) {
    auto search = aoe::make_search(name);
    auto runner =
        aoe::OpenCLRunner::open(aoe::opencl::gemm_kernel(problem), {.repetitions = 3}, selection);
    if (!search || !runner) {
      std::fprintf(stderr, "%s\n", (!search ? search.error() : runner.error()).message.c_str());
      return 1;
    }
    // The device name is part of the key: a repository keeps results per device.
    const aoe::TuningKey key{"sgemm/" + std::to_string(n), info.name};
    // A batch of 4: the runner builds the four programs on several threads.
    aoe::Tuner<aoe::AnySearch, aoe::OpenCLRunner, aoe::MemoryRepository> tuner(
        std::move(*search), std::move(*runner), aoe::TunerOptions{.seed = 1, .batch_size = 4});
    const aoe::TuningResult result = tuner.tune(space, key, aoe::MaxEvaluations{evaluations});
    if (!result.found()) {
      std::fprintf(stderr, "%s: no configuration verified\n", std::string(name).c_str());
      return 1;
    }
    std::printf(
        "%-13s %3zu evaluated (%zu correct, %zu failed) in %6.1f s: %6.2f GFLOP/s  %s\n",
        std::string(name).c_str(), result.history.size(), result.count(aoe::Status::correct),
        result.history.size() - result.count(aoe::Status::correct), result.total_seconds,
        flops / result.best_value * 1e-9, space.to_string(*result.best_configuration).c_str());
  }
  return 0;
}
