// Tunes the project's tiled SGEMM (aoe/measure/cuda/gemm.hpp: block tile, thread tile in
// registers, float4/float2 loads, A transposed in shared memory, double buffering, unrolling)
// on a CUDA GPU with each search policy, and reports each one's best GFLOP/s.
//
//   aoe_example_cuda_gemm [--size N] [--evaluations E] [--require-gpu]
//
// The device is AOE_CUDA_DEVICE (an ordinal or part of the name; device 0 by default). Without
// a CUDA driver or device it exits with 77 (skipped); --require-gpu means the same here, as
// every CUDA device is a GPU. The kernels are compiled with NVRTC (several at once); every
// measured configuration is checked against a host reference: a wrong answer is never a
// winner. On an H100 try --size 4096 --evaluations 200 and compare with cuBLAS's SGEMM.
#include <aoe/cuda.hpp>
#include <aoe/measure/cuda/gemm.hpp>
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
  std::int64_t n = 1024;
  std::size_t evaluations = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      n = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--evaluations") == 0 && i + 1 < argc) {
      evaluations = static_cast<std::size_t>(std::atoll(argv[++i]));
    } else if (std::strcmp(argv[i], "--require-gpu") == 0) {
      // Every CUDA device is a GPU: the probe below already requires one.
    } else {
      std::fprintf(stderr,
                   "usage: %s [--size N (multiple of 256)] [--evaluations E] [--require-gpu]\n",
                   argv[0]);
      return 2;
    }
  }
  if (n < 256 || n % 256 != 0 || evaluations == 0) {
    std::fprintf(stderr, "--size must be a positive multiple of 256, --evaluations positive\n");
    return 2;
  }

  // --- The device --------------------------------------------------------------------------
  const aoe::cuda::DeviceSelection selection = aoe::CudaRunner::default_selection();
  const auto device = aoe::CudaRunner::probe(selection);
  if (!device) {
    std::printf("skipped: %s\n", device.error().message.c_str());
    return 77;
  }

  // --- The kernel, its space and its reference ---------------------------------------------
  const auto problem = aoe::cuda::gemm_problem(n, n, n);
  const aoe::Space space = aoe::cuda::gemm_space(n, n, n, *device);
  const double flops = aoe::cuda::gemm_flops(problem);
  std::printf("device: %s\nSGEMM %lld^3: %.0f raw, %.0f valid configurations\n",
              device->key().c_str(), static_cast<long long>(n), space.size().raw,
              space.size().valid);

  // --- Each policy, the same budget ----------------------------------------------------------
  for (const auto name : aoe::search_names()) {
    auto search = aoe::make_search(name);
    auto runner = aoe::CudaRunner::open(aoe::cuda::gemm_kernel(problem), {}, selection);
    if (!search || !runner) {
      std::fprintf(stderr, "%s\n", (!search ? search.error() : runner.error()).message.c_str());
      return 1;
    }
    // The device's name and architecture are part of the key: results are kept per GPU model.
    const aoe::TuningKey key{"sgemm/" + std::to_string(n), runner->device().key()};
    // A batch of 8: the runner compiles the eight kernels with NVRTC on several threads.
    aoe::Tuner<aoe::AnySearch, aoe::CudaRunner, aoe::MemoryRepository> tuner(
        std::move(*search), std::move(*runner), aoe::TunerOptions{.seed = 1, .batch_size = 8});
    const aoe::TuningResult result = tuner.tune(space, key, aoe::MaxEvaluations{evaluations});
    if (!result.found()) {
      std::fprintf(stderr, "%s: no configuration verified\n", std::string(name).c_str());
      return 1;
    }
    std::printf(
        "%-13s %3zu evaluated (%zu correct, %zu failed) in %6.1f s: %8.1f GFLOP/s  %s\n",
        std::string(name).c_str(), result.history.size(), result.count(aoe::Status::correct),
        result.history.size() - result.count(aoe::Status::correct), result.total_seconds,
        flops / result.best_value * 1e-9, space.to_string(*result.best_configuration).c_str());
  }
  return 0;
}
