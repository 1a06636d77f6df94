// aoe-bench record (see record.hpp). Built with the OpenCL runner when OpenCL was found
// (aoe::opencl defines AOE_WITH_OPENCL) and with the CUDA runner when the CUDA toolkit was
// (aoe::cuda defines AOE_WITH_CUDA); without one, recording on it says so.
#include "record.hpp"

#include <aoe/experiment/simulator_problems.hpp>
#include <aoe/measure/kernel/timing.hpp>
#include <aoe/measure/replay/kernel_tuner_writer.hpp>
#include <aoe/measure/replay/record.hpp>
#include <aoe/measure/simulator/simulator_runner.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <span>
#include <string>
#include <vector>
#if defined(AOE_WITH_OPENCL)
#include <aoe/measure/opencl/gemm.hpp>
#include <aoe/measure/opencl/opencl_runner.hpp>
#endif
#if defined(AOE_WITH_CUDA)
#include <aoe/measure/cuda/cuda_runner.hpp>
#include <aoe/measure/cuda/gemm.hpp>
#endif

namespace aoe_bench {

bool record_available(const std::string& device) noexcept {
  if (device == "simulator") return true;
#if defined(AOE_WITH_OPENCL)
  if (device == "opencl") return true;
#endif
#if defined(AOE_WITH_CUDA)
  if (device == "cuda") return true;
#endif
  (void)device;
  return false;
}

namespace {

// Measures the configurations `settings` asks for with `runner` and writes the cache (named
// `name`, its kernel `kernel`).
template <class Runner>
aoe::Result<RecordSummary> record_with(Runner& runner, const aoe::Space& space,
                                       const RecordSettings& settings, const std::string& device,
                                       std::string name = {}, std::string kernel = "aoe_gemm") {
  aoe::replay::RecordOptions options{
      .sample = settings.sample,
      .seed = settings.seed,
      .batch = settings.batch,
      .name = name.empty() ? "aoe_gemm_" + std::to_string(settings.size) : std::move(name),
      .device = device,
      .kernel = std::move(kernel)};
  options.progress = [](std::size_t done, std::size_t total) {
    std::fprintf(stderr, "\raoe-bench record: %zu / %zu", done, total);
    if (done == total) std::fprintf(stderr, "\n");
  };
  const auto configurations = aoe::replay::configurations_to_record(space, options);
  const auto recording = aoe::replay::record(runner, space, configurations, options);
  if (auto w = aoe::replay::write_kernel_tuner_cache(recording, settings.output); !w) {
    return w.error();
  }
  return RecordSummary{device, recording.configurations(), recording.valid_configurations(),
                       recording.optimum()};
}

// The simulator: one operator's space (`--kernel`, as `--input sim:` names it, one operator),
// timed and its energy modelled without noise.
aoe::Result<RecordSummary> record_simulator(const RecordSettings& settings) {
  auto problems = aoe::experiment::load_simulator_problems("sim:" + settings.kernel);
  if (!problems) {
    return aoe::make_error(aoe::Errc::invalid_argument, "--kernel: " + problems.error().message);
  }
  if (problems->size() != 1) {
    return aoe::make_error(aoe::Errc::invalid_argument,
                           "--kernel '" + settings.kernel + "': names " +
                               std::to_string(problems->size()) +
                               " operators; the simulator records one (e.g. "
                               "res2a_branch2c@Ascend310P3)");
  }
  const auto& p = problems->front();
  const auto name = p.name.substr(4);  // without "sim:"
  // Each configuration's charge is the device time the simulator charges for it (its run;
  // compiling costs nothing simulated): written as `benchmark_time`, so that replaying the
  // recording (aoe-bench, Kernel Tuner's simulation mode, bench/peers) charges what a search on
  // the simulator is charged. The simulator has no noise, so there are no `times`.
  struct ProblemMeasure {
    const aoe::experiment::Problem* problem;
    std::vector<aoe::kernel::Timing> charged;
    [[nodiscard]] std::vector<aoe::Measurement> measure(aoe::SpaceView view,
                                                        std::span<const aoe::Configuration> batch) {
      auto measured = problem->measure(view, batch);
      charged.assign(measured.size(), {});
      for (std::size_t i = 0; i < measured.size(); ++i) {
        charged[i].benchmark_seconds = measured[i].cost;
      }
      return measured;
    }
    [[nodiscard]] const std::vector<aoe::kernel::Timing>& timings() const noexcept {
      return charged;
    }
  } measure{&p, {}};
  return record_with(measure, *p.space, settings, name.substr(name.find('@') + 1), name, name);
}

aoe::Result<RecordSummary> record_opencl(const RecordSettings& settings) {
#if defined(AOE_WITH_OPENCL)
  if (settings.size < 16 || settings.size % 16 != 0) {
    return aoe::make_error(aoe::Errc::invalid_argument, "--size " + std::to_string(settings.size) +
                                                            ": expected a positive multiple of 16");
  }
  const auto selection = aoe::OpenCLRunner::default_selection();
  const auto device = aoe::opencl::find_device(selection);
  if (!device) return device.error();
  const auto info = aoe::opencl::describe(*device);
  const auto n = settings.size;
  const auto problem = aoe::opencl::gemm_problem(n, n, n);
  auto runner = aoe::OpenCLRunner::open(
      aoe::opencl::gemm_kernel(problem),
      {.repetitions = settings.repetitions, .energy = settings.energy}, selection);
  if (!runner) return runner.error();
  if (settings.energy && !runner->measures_energy()) {
    return aoe::make_error(aoe::Errc::unsupported, "--energy: no energy counter for " + info.name +
                                                       ": " + runner->energy_unavailable());
  }
  return record_with(*runner, aoe::opencl::gemm_space(n, n, n, info), settings, info.name);
#else
  (void)settings;
  return aoe::make_error(aoe::Errc::unsupported,
                         "this aoe-bench was built without OpenCL (install ocl-icd-opencl-dev and "
                         "opencl-clhpp-headers and configure again)");
#endif
}

aoe::Result<RecordSummary> record_cuda(const RecordSettings& settings) {
#if defined(AOE_WITH_CUDA)
  if (settings.size < 256 || settings.size % 256 != 0) {
    return aoe::make_error(aoe::Errc::invalid_argument, "--size " + std::to_string(settings.size) +
                                                            ": expected a multiple of 256");
  }
  const auto info = aoe::CudaRunner::probe();
  if (!info) return info.error();
  const auto n = settings.size;
  const auto problem = aoe::cuda::gemm_problem(n, n, n);
  auto runner =
      aoe::CudaRunner::open(aoe::cuda::gemm_kernel(problem),
                            {.repetitions = settings.repetitions, .energy = settings.energy});
  if (!runner) return runner.error();
  return record_with(*runner, aoe::cuda::gemm_space(n, n, n, *info), settings, info->key());
#else
  (void)settings;
  return aoe::make_error(aoe::Errc::unsupported,
                         "this aoe-bench was built without CUDA (install the CUDA toolkit in "
                         "/usr/local/cuda and configure again)");
#endif
}

}  // namespace

aoe::Result<RecordSummary> record(const RecordSettings& settings) {
  if (settings.device == "simulator") return record_simulator(settings);
  if (settings.kernel != "gemm") {
    return aoe::make_error(aoe::Errc::invalid_argument,
                           "--kernel '" + settings.kernel + "': expected gemm");
  }
  if (settings.device == "opencl") return record_opencl(settings);
  if (settings.device == "cuda") return record_cuda(settings);
  return aoe::make_error(aoe::Errc::invalid_argument,
                         "--device '" + settings.device + "': expected opencl, cuda or simulator");
}

int record_main(int argc, char** argv) {
  CLI::App app{
      "aoe-bench record: measure a kernel's space on an OpenCL device (AOE_OPENCL_PLATFORM / "
      "AOE_OPENCL_DEVICE) or an NVIDIA GPU (--device cuda, AOE_CUDA_DEVICE) and write a Kernel "
      "Tuner cache"};
  app.name("aoe-bench record");
  RecordSettings settings;
  app.add_option("--device", settings.device,
                 "opencl (default), cuda, or simulator (an operator's space with its simulated "
                 "energies)");
  app.add_option("--kernel", settings.kernel,
                 "the kernel: gemm (the project's SGEMM); with --device simulator an operator as "
                 "--input sim: names it, e.g. res2a_branch2c@Ascend310P3");
  app.add_flag("--energy", settings.energy,
               "also the energy per configuration: --device cuda NVML's (0.2 s more each), "
               "--device opencl on a CPU device the packages' RAPL counters (10 ms more each; "
               "root only)");
  app.add_option("--size", settings.size, "M = N = K (a multiple of 16 on OpenCL, of 256 on CUDA)");
  app.add_option("--sample", settings.sample, "configurations to record (0: every valid one)");
  app.add_option("--seed", settings.seed, "the sample's seed");
  app.add_option("--batch", settings.batch, "configurations built in parallel")
      ->check(CLI::Range(1, 64));
  app.add_option("--repetitions", settings.repetitions, "timed runs per configuration")
      ->check(CLI::Range(1, 1000));
  app.add_option("--output", settings.output, "the Kernel Tuner cache to write")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const auto summary = record(settings);
  if (!summary) {
    std::fprintf(stderr, "aoe-bench record: %s\n", summary.error().message.c_str());
    const auto code = summary.error().code;
    if (code == aoe::make_error_code(aoe::Errc::io_error)) return 4;
    if (code == aoe::make_error_code(aoe::Errc::invalid_argument)) return 2;
    return 3;
  }
  std::printf("recorded %zu configurations (%zu valid) on %s: best %.4f ms -> %s\n",
              summary->configurations, summary->valid, summary->device.c_str(),
              summary->optimum_seconds * 1e3, settings.output.c_str());
  return 0;
}

}  // namespace aoe_bench
