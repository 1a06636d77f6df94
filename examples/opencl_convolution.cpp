// Tunes a 2D convolution (aoe/measure/opencl/convolution.hpp: the classic Kernel Tuner
// benchmark kernel, block and tile sizes, local-memory staging) on an OpenCL device with each
// search policy (each winner stored under a key that names the device).
//
//   aoe_example_opencl_convolution [--size N] [--filter F] [--evaluations E] [--require-gpu]
//
// The device is AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE (docs/opencl.md); --require-gpu picks
// the first GPU. Exits with 77 (skipped) when there is no such device.
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
  std::int64_t n = 1024, f = 15;
  std::size_t evaluations = 20;
  bool require_gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      n = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
      f = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--evaluations") == 0 && i + 1 < argc) {
      evaluations = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else if (std::strcmp(argv[i], "--require-gpu") == 0) {
      require_gpu = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--size N (multiple of 128)] [--filter F] [--evaluations E] "
                   "[--require-gpu]\n",
                   argv[0]);
      return 2;
    }
  }
  if (n < 128 || n % 128 != 0 || f < 1 || f > 31 || evaluations == 0) {
    std::fprintf(stderr, "--size: a multiple of 128; --filter: 1..31; --evaluations > 0\n");
    return 2;
  }

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

  const auto problem = aoe::opencl::convolution_problem(n, n, f, f);
  const aoe::Space space = aoe::opencl::convolution_space(problem, info);
  const double flops = 2.0 * static_cast<double>(n * n * f * f);
  std::printf("device: %s\nconvolution %lldx%lld, %lldx%lld filter: %.0f valid configurations\n",
              info.name.c_str(), static_cast<long long>(n), static_cast<long long>(n),
              static_cast<long long>(f), static_cast<long long>(f), space.size().valid);

  for (const auto name : aoe::search_names()) {
    auto search = aoe::make_search(name);
    auto runner = aoe::OpenCLRunner::open(aoe::opencl::convolution_kernel(problem),
                                          {.repetitions = 3}, selection);
    if (!search || !runner) {
      std::fprintf(stderr, "%s\n", (!search ? search.error() : runner.error()).message.c_str());
      return 1;
    }
    aoe::Tuner<aoe::AnySearch, aoe::OpenCLRunner, aoe::MemoryRepository> tuner(
        std::move(*search), std::move(*runner), aoe::MemoryRepository{},
        aoe::TunerOptions{.seed = 1, .batch_size = 4});
    // The device name is part of the key: a repository keeps results per device.
    const aoe::TuningKey key{"convolution/" + std::to_string(n) + "/" + std::to_string(f),
                             info.name};
    const aoe::TuningResult result = tuner.tune(space, key, aoe::MaxEvaluations{evaluations});
    if (!result.found()) {
      std::fprintf(stderr, "%s: no configuration verified\n", std::string(name).c_str());
      return 1;
    }
    std::printf("%-13s %3zu evaluated (%zu correct) in %6.1f s: %7.2f GFLOP/s  %s\n",
                std::string(name).c_str(), result.history.size(),
                result.count(aoe::Status::correct), result.total_seconds,
                flops / result.best_value * 1e-9,
                space.to_string(*result.best_configuration).c_str());
  }
  return 0;
}
