// cuda_bench: our SGEMM (aoe/measure/cuda/gemm.hpp) tuned through Runner<device::Cuda> on an
// NVIDIA GPU, against cuBLAS on the same GPU in the same run (issue 29; docs/cuda.md has the
// figures and scripts/gpu-check.sh runs it).
//
//   cuda_bench --json FILE [--svg FILE] [--size 4096] [--seeds 1] [--max-evaluations 200]
//              [--policies random,annealing,...] [--record 0] [--replay-seeds 30]
//              [--kernel-tuner-json FILE]
//   cuda_bench --export-kernel-tuner DIR [--size 4096] [--assume-h100]
//   cuda_bench --replot FILE.json --svg FILE.svg
//
// 1. cublas: cuBLAS SGEMM at --size in its default math mode (FP32, no TF32: CUBLAS_DEFAULT_MATH
//    and NVIDIA_TF32_OVERRIDE=0), median of 20 runs timed with CUDA events; its output is the
//    reference our kernel is checked against (a host reference of 4096^3 would take minutes).
// 2. The space recorded: every valid configuration (--record 0) or a uniform sample, measured
//    once (a Kernel Tuner cache file next to the JSON), then replayed: each policy's mean
//    fraction of the recorded optimum at 25, 50 and 100 evaluations over --replay-seeds seeds,
//    random search's exact expectation beside it.
// 3. aoe_gemm: each policy tunes our kernel, --seeds runs: best GFLOP/s at 25, 50, 100, 200
//    evaluations, wall seconds and compile seconds. Measurements are shared within the process
//    (a configuration measured in item 2 is not measured again); wall_seconds is what the run
//    would have cost alone: the sum of its measurements' costs (compile, verification, runs)
//    plus its search time, and compile_seconds the NVRTC time of the configurations it measured.
// 4. --kernel-tuner-json: the rows bench/cuda/kernel_tuner_gemm.py wrote (Kernel Tuner tuning
//    the same kernel on the same GPU, "tuner": "kernel_tuner:<strategy>"), merged in.
// --export-kernel-tuner writes what that script reads: the kernel's source (aoe_gemm.cu) and
// kernel_tuner_spec.json (parameters, every valid configuration, geometry, budgets).
//
// JSON: {"device", "compute_capability", "clock_mhz", "nvrtc", "bench_seconds", "results": [{
// "kernel", "tuner", "evaluations", "best_gflops", "wall_seconds", ...}]}, field names as
// opencl_bench's. Exit codes: 0 done, 2 bad flags, 3 no CUDA device, 1 anything else.
#include "support/gemm_bench.hpp"
#include <aoe/cuda.hpp>
#include <aoe/measure/cuda/gemm.hpp>
#include <aoe/measure/cuda/known_devices.hpp>

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using aoe_bench::Clock;
using aoe_bench::Row;
using aoe_bench::since;
using SharedMeasurements = aoe_bench::SharedMeasurements<aoe::CudaRunner>;

constexpr int exit_usage = 2;
constexpr int exit_no_device = 3;

// cuBLAS SGEMM, row-major C = A B, in the default math mode: the median seconds of `runs`
// after a warm-up, and C (the reference of our kernel's check).
struct CublasResult {
  double seconds = 0;
  std::vector<double> c;
  std::string error;
};

CublasResult cublas_sgemm(const aoe::cuda::GemmProblem& p, int runs) {
  CublasResult out;
  const auto m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cublasHandle_t handle = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  const auto check = [&](bool ok, const char* what) {
    if (!ok && out.error.empty()) out.error = what;
    return ok;
  };
  const std::size_t bytes_c = static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * 4;
  if (check(cudaMalloc(&a, p.a.size() * 4) == cudaSuccess, "cudaMalloc") &&
      check(cudaMalloc(&b, p.b.size() * 4) == cudaSuccess, "cudaMalloc") &&
      check(cudaMalloc(&c, bytes_c) == cudaSuccess, "cudaMalloc") &&
      check(cudaMemcpy(a, p.a.data(), p.a.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess,
            "cudaMemcpy") &&
      check(cudaMemcpy(b, p.b.data(), p.b.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess,
            "cudaMemcpy") &&
      check(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS, "cublasCreate") &&
      check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS,
            "cublasSetMathMode") &&
      check(cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess,
            "cudaEventCreate")) {
    const float alpha = 1, beta = 0;
    // Row-major C = A B is column-major C^T = B^T A^T.
    const auto gemm = [&] {
      return cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, n, a, k, &beta, c,
                         n) == CUBLAS_STATUS_SUCCESS;
    };
    std::vector<double> seconds;
    if (check(gemm() && cudaDeviceSynchronize() == cudaSuccess, "cublasSgemm")) {
      for (int r = 0; r < runs; ++r) {
        float ms = 0;
        cudaEventRecord(start);
        const bool ok = gemm();
        cudaEventRecord(stop);
        if (!check(ok && cudaEventSynchronize(stop) == cudaSuccess, "cublasSgemm")) break;
        cudaEventElapsedTime(&ms, start, stop);
        seconds.push_back(ms * 1e-3);
      }
    }
    if (out.error.empty()) {
      out.seconds = aoe::median(seconds);
      std::vector<float> host(bytes_c / 4);
      if (check(cudaMemcpy(host.data(), c, bytes_c, cudaMemcpyDeviceToHost) == cudaSuccess,
                "cudaMemcpy")) {
        out.c.assign(host.begin(), host.end());
      }
    }
  }
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  if (handle != nullptr) cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return out;
}

// The kernel's source and the space as Kernel Tuner reads them (bench/cuda/kernel_tuner_gemm.py).
int export_kernel_tuner(const std::filesystem::path& dir, std::int64_t size,
                        const aoe::cuda::DeviceInfo& info, const aoe_bench::RunSettings& s) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const aoe::Space space = aoe::cuda::gemm_space(size, size, size, info);
  boost::json::object params;
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    boost::json::array values;
    for (const auto& level : space.parameter(d).levels()) values.push_back(level.as_integer());
    params[space.parameter(d).name()] = std::move(values);
  }
  boost::json::array configurations;
  auto e = space.enumerate();
  aoe::Configuration c;
  while (e.next(c)) {
    boost::json::array values;
    for (std::size_t d = 0; d < space.dimensions(); ++d) {
      values.push_back(space.parameter(d).level(c[d]).as_integer());
    }
    configurations.push_back(std::move(values));
  }
  boost::json::array budgets;
  for (std::size_t b = 25; b <= std::min<std::size_t>(s.max_evaluations, 100); b *= 2) {
    budgets.push_back(b);
  }
  const boost::json::object spec{
      {"kernel_source", "aoe_gemm.cu"},
      {"kernel_name", "aoe_gemm_defines"},
      {"compiler_options", boost::json::array{"-DAOE_GEMM_DEFINES_ENTRY=1", "-std=c++17"}},
      {"m", size},
      {"n", size},
      {"k", size},
      {"device", info.name},
      {"tune_params", std::move(params)},
      {"configurations", std::move(configurations)},
      {"block_size_names", boost::json::array{"TX", "TY"}},
      {"grid_div_x", boost::json::array{"BN"}},
      {"grid_div_y", boost::json::array{"BM"}},
      {"seed", 1},
      {"budgets", std::move(budgets)},
      {"strategies", boost::json::array{"bayes_opt", "genetic_algorithm", "random_sample"}},
      {"atol", 1e-3 * static_cast<double>(size) / 64}};
  std::ofstream(dir / "aoe_gemm.cu") << aoe::cuda::gemm_source;
  std::ofstream out(dir / "kernel_tuner_spec.json");
  out << boost::json::serialize(spec) << "\n";
  if (!out) {
    std::fprintf(stderr, "cuda_bench: cannot write %s\n", (dir / "kernel_tuner_spec.json").c_str());
    return 1;
  }
  std::fprintf(stderr, "cuda_bench: %s: %zu configurations of %s for Kernel Tuner\n", dir.c_str(),
               spec.at("configurations").as_array().size(), info.key().c_str());
  return 0;
}

// The rows of an earlier JSON file (ours, or Kernel Tuner's script's).
bool read_rows(const std::string& path, std::vector<Row>& rows, boost::json::object* root_out) {
  const auto parsed = aoe_bench::read_results_json(path);
  if (!parsed) {
    std::fprintf(stderr, "cuda_bench: %s: not a JSON file with \"results\"\n", path.c_str());
    return false;
  }
  const boost::json::object& root = *parsed;
  for (const auto& v : root.at("results").as_array()) {
    const auto& o = v.as_object();
    Row r{std::string(o.at("kernel").as_string()), std::string(o.at("tuner").as_string()),
          static_cast<std::size_t>(o.at("evaluations").to_number<double>()),
          o.contains("best_gflops") && o.at("best_gflops").is_number()
              ? o.at("best_gflops").to_number<double>()
              : 0.0,
          o.contains("wall_seconds") && o.at("wall_seconds").is_number()
              ? o.at("wall_seconds").to_number<double>()
              : 0.0};
    for (const auto& kv : o) r.extra[kv.key()] = kv.value();
    rows.push_back(std::move(r));
  }
  if (root_out != nullptr) *root_out = root;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuda_bench: our SGEMM tuned on an NVIDIA GPU against cuBLAS and Kernel Tuner"};
  std::string json_path, svg_path, export_dir, replot, kernel_tuner_json;
  std::string policies_arg = "random,annealing,evolutionary,bayesian,ensemble";
  std::size_t size = 4096, seeds = 1, max_evaluations = 200, record_sample = 0, replay_seeds = 30,
              batch = 16;
  bool assume_h100 = false;
  app.add_option("--json", json_path, "where to write the results (required to measure)");
  app.add_option("--svg", svg_path, "where to write the plot");
  app.add_option("--size", size, "M = N = K (a multiple of 256)")->check(CLI::Range(256, 16384));
  app.add_option("--seeds", seeds, "live tuning runs per policy")->check(CLI::Range(1, 100));
  app.add_option("--max-evaluations", max_evaluations, "live budget: 25, 50, ... up to this")
      ->check(CLI::Range(25, 1000));
  app.add_option("--policies", policies_arg, "comma-separated search policies");
  app.add_option("--record", record_sample,
                 "configurations recorded (0: every valid one) for the replay");
  app.add_option("--replay-seeds", replay_seeds, "replayed runs per policy");
  app.add_option("--batch", batch, "configurations per batch (compiled in parallel)")
      ->check(CLI::Range(1, 256));
  app.add_option("--kernel-tuner-json", kernel_tuner_json,
                 "merge the rows of bench/cuda/kernel_tuner_gemm.py's JSON");
  app.add_option("--export-kernel-tuner", export_dir,
                 "write the kernel and kernel_tuner_spec.json for Kernel Tuner into DIR and stop");
  app.add_flag("--assume-h100", assume_h100,
               "--export-kernel-tuner without a GPU: the space of an H100's limits");
  app.add_option("--replot", replot,
                 "measure nothing: draw --svg from the results of an earlier --json FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : exit_usage;
  }
  if (size % 256 != 0) {
    std::fprintf(stderr, "cuda_bench: --size %zu: expected a multiple of 256\n", size);
    return exit_usage;
  }
  const auto n = static_cast<std::int64_t>(size);
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  aoe_bench::RunSettings settings{.policies = aoe_bench::split(policies_arg),
                                  .seeds = seeds,
                                  .max_evaluations = max_evaluations,
                                  .batch = batch,
                                  .replay_seeds = replay_seeds,
                                  .size = n,
                                  .flops = flops};
  if (!replot.empty()) {
    std::vector<Row> rows;
    if (!read_rows(replot, rows, nullptr)) return exit_usage;
    double cublas = 0;
    std::size_t most = 25;
    for (const auto& r : rows) {
      if (r.tuner == "cublas") cublas = r.best_gflops;
      if (!r.extra.contains("fraction_of_optimum")) most = std::max(most, r.evaluations);
    }
    aoe_bench::write_svg(svg_path.empty() ? "cuda_bench.svg" : svg_path, rows,
                         {{cublas, "cuBLAS SGEMM (FP32)", "4 4"}}, most);
    return 0;
  }

  const auto probe = aoe::CudaRunner::probe();
  if (!export_dir.empty()) {
    if (!probe && !assume_h100) {
      std::fprintf(stderr, "cuda_bench: %s (--assume-h100 exports an H100's space)\n",
                   probe.error().message.c_str());
      return exit_no_device;
    }
    return export_kernel_tuner(export_dir, n, probe ? *probe : aoe::cuda::h100_sxm(), settings);
  }
  if (json_path.empty()) {
    std::fprintf(stderr,
                 "cuda_bench: --json FILE is required (or --export-kernel-tuner DIR, "
                 "or --replot FILE --svg FILE)\n");
    return exit_usage;
  }
  if (!probe) {
    std::fprintf(stderr, "cuda_bench: %s\n", probe.error().message.c_str());
    return exit_no_device;
  }
  const aoe::cuda::DeviceInfo& info = *probe;
  setenv("NVIDIA_TF32_OVERRIDE", "0", 1);  // before cuBLAS starts: FP32 means FP32
  const auto bench_begin = Clock::now();
  std::vector<Row> rows;

  // --- 1. cuBLAS, and the reference --------------------------------------------------------
  auto problem = aoe::kernel::gemm_inputs(n, n, n);
  const auto cublas_begin = Clock::now();
  const CublasResult cublas = cublas_sgemm(problem, 20);
  if (!cublas.error.empty()) {
    std::fprintf(stderr, "cuda_bench: cuBLAS: %s failed\n", cublas.error.c_str());
    return 1;
  }
  const double cublas_gflops = flops / cublas.seconds * 1e-9;
  rows.push_back({"cublas_sgemm",
                  "cublas",
                  0,
                  cublas_gflops,
                  since(cublas_begin),
                  {{"size", n}, {"math_mode", "CUBLAS_DEFAULT_MATH (FP32, no TF32)"}}});
  std::fprintf(stderr, "cublas %zu^3: %.0f GFLOP/s\n", size, cublas_gflops);
  problem.c = cublas.c;

  // --- 2. The space recorded, and replayed ------------------------------------------------
  auto runner = aoe::CudaRunner::open(aoe::cuda::gemm_kernel(problem),
                                      {.compile_threads = std::min<std::size_t>(batch, 16)});
  if (!runner) {
    std::fprintf(stderr, "cuda_bench: %s\n", runner.error().message.c_str());
    return 1;
  }
  const aoe::Space space = aoe::cuda::gemm_space(n, n, n, info);
  std::fprintf(stderr, "device: %s, NVRTC %s (%s); space: %.0f raw, %.0f valid\n",
               info.key().c_str(), aoe::cuda::nvrtc_version().c_str(),
               runner->architecture().c_str(), space.size().raw, space.size().valid);
  const auto clock_at_start = runner->gpu_state();
  std::map<aoe::Configuration, aoe::Measurement> shared;
  SharedMeasurements measure(&*runner, &shared);
  const auto configurations =
      aoe::replay::configurations_to_record(space, {.sample = record_sample, .seed = 7});
  const auto cache_path = (std::filesystem::path(json_path).parent_path() /
                           ("aoe_gemm_" + std::to_string(size) + "_cache.json"))
                              .string();
  const auto replayed = aoe_bench::replay_rows(settings, space, configurations, measure,
                                               {.batch = batch,
                                                .name = "aoe_gemm_" + std::to_string(size),
                                                .device = info.key(),
                                                .kernel = "aoe_gemm"},
                                               cache_path, rows);
  if (!replayed) return 1;

  // --- 3. Each policy, live (served from the shared measurements where it can) -------------
  const auto compile_seconds = [&measure](const aoe::Configuration& c) {
    const auto& all = measure.all_timings();
    const auto it = all.find(c);
    return it == all.end() ? 0.0 : it->second.compile_seconds;
  };
  if (!aoe_bench::live_rows(settings, space, measure, rows, compile_seconds)) return exit_usage;

  // --- 4. Kernel Tuner's rows --------------------------------------------------------------
  if (!kernel_tuner_json.empty() && !read_rows(kernel_tuner_json, rows, nullptr)) return 1;

  // What the GPU was doing: NVML's SM clock (at the start and now), else the driver's typical.
  const auto clock_now = runner->gpu_state();
  const double clock_mhz =
      clock_at_start.sm_clock_mhz ? *clock_at_start.sm_clock_mhz : info.clock_khz / 1000.0;
  boost::json::array results;
  for (const auto& r : rows) results.push_back(aoe_bench::to_json(r));
  boost::json::object root{{"device", info.name},
                           {"compute_capability", info.architecture()},
                           {"clock_mhz", clock_mhz},
                           {"nvrtc", aoe::cuda::nvrtc_version()},
                           {"size", n},
                           {"space_valid", space.size().valid},
                           {"bench_seconds", since(bench_begin)},
                           {"results", std::move(results)}};
  if (clock_now.sm_clock_mhz) root["clock_mhz_at_end"] = *clock_now.sm_clock_mhz;
  if (clock_now.temperature_c) root["temperature_c_at_end"] = *clock_now.temperature_c;
  if (clock_now.power_w) root["power_w_at_end"] = *clock_now.power_w;
  std::ofstream(json_path) << boost::json::serialize(root) << "\n";
  if (!svg_path.empty()) {
    aoe_bench::write_svg(svg_path, rows, {{cublas_gflops, "cuBLAS SGEMM (FP32)", "4 4"}},
                         max_evaluations);
  }
  std::fprintf(stderr, "done in %.0f s\n", since(bench_begin));
  return 0;
}
