// aoe-bench record: measures a kernel's space on an OpenCL device or an NVIDIA GPU (CUDA) once,
// or a simulator operator's with its simulated energies, and writes it as a Kernel Tuner cache
// file, which `aoe-bench --input` (and Kernel Tuner) replay offline.
#ifndef AOE_TOOLS_AOE_BENCH_RECORD_HPP
#define AOE_TOOLS_AOE_BENCH_RECORD_HPP

#include <aoe/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace aoe_bench {

/// What `aoe-bench record` measures.
struct RecordSettings {
  std::string device = "opencl";  ///< opencl (AOE_OPENCL_*), cuda (AOE_CUDA_DEVICE) or simulator
  /// The project's SGEMM ("gemm": measure/opencl/ or measure/cuda/); with the simulator, an
  /// operator as aoe-bench's `--input sim:` names it ("res2a_branch2c@Ascend310P3").
  std::string kernel = "gemm";
  /// The energy per configuration too (docs/energy.md): cuda NVML's, opencl RAPL's on a CPU
  /// device (none there: `unsupported`)
  bool energy = false;
  std::int64_t size = 256;      ///< M = N = K
  std::size_t sample = 0;       ///< 0: every valid configuration; else a uniform sample
  std::uint64_t seed = 0;       ///< the sample's seed
  std::size_t batch = 8;        ///< configurations built in parallel
  std::size_t repetitions = 5;  ///< timed runs per configuration
  std::string output;           ///< the Kernel Tuner cache to write
};

/// What was recorded.
struct RecordSummary {
  std::string device;
  std::size_t configurations = 0;
  std::size_t valid = 0;
  double optimum_seconds = 0;
};

/// True when this build has the runner of `device` ("opencl", "cuda"): its SDK was found at
/// configure time.
[[nodiscard]] bool record_available(const std::string& device = "opencl") noexcept;

/// Records `settings` on the device AOE_OPENCL_PLATFORM / AOE_OPENCL_DEVICE choose (or
/// AOE_CUDA_DEVICE). Errors: `unsupported` (no such runner in this build), `not_found` (no
/// device), `invalid_argument` (device, kernel or size), `io_error` (the output).
[[nodiscard]] aoe::Result<RecordSummary> record(const RecordSettings& settings);

/// `aoe-bench record ...`: parses the flags (argv[0] is "record"), records, prints a summary.
/// Returns the exit code (0 ok, 2 usage, 3 no device, 4 output not written).
int record_main(int argc, char** argv);

}  // namespace aoe_bench

#endif  // AOE_TOOLS_AOE_BENCH_RECORD_HPP
