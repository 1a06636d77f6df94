// Compiling a CUDA kernel instance with NVRTC: the configuration's -D options and template
// arguments in, a binary image for the device and the instance's lowered name out. Thread-safe
// (NVRTC compiles separate programs concurrently), needs no GPU.
#ifndef AOE_MEASURE_CUDA_NVRTC_COMPILER_HPP
#define AOE_MEASURE_CUDA_NVRTC_COMPILER_HPP

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace aoe::cuda {

/// A compiled kernel instance, or why it did not compile.
struct Compiled {
  bool ok = false;
  std::vector<char> image{};   ///< CUBIN (or PTX, when `ptx`), for cuModuleLoadData
  bool ptx = false;            ///< the image is PTX the driver compiles (a device NVRTC lacks)
  std::string lowered_name{};  ///< the instance's symbol, for cuModuleGetFunction
  std::string message{};       ///< why it failed, with NVRTC's log
  std::string log{};           ///< NVRTC's log (warnings too)
  double seconds = 0;          ///< wall time of the compilation
};

/// "13.0": the version of the NVRTC library loaded.
[[nodiscard]] inline std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

/// NVRTC's --gpu-architecture for a device of compute capability major.minor: `sm_XY` (a CUBIN)
/// when NVRTC knows that architecture; else `compute_XY` of the newest one it knows below it
/// (PTX, which the driver compiles for the device).
[[nodiscard]] inline std::string target_architecture(int major, int minor) {
  const int wanted = major * 10 + minor;
  int count = 0;
  std::vector<int> archs;
  if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    archs.resize(static_cast<std::size_t>(count));
    if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) archs.clear();
  }
  if (archs.empty() || std::find(archs.begin(), archs.end(), wanted) != archs.end()) {
    return "sm_" + std::to_string(wanted);
  }
  int best = archs.front();
  for (const int a : archs) {
    if (a <= wanted) best = std::max(best, a);
  }
  return "compute_" + std::to_string(best);
}

namespace detail {

[[nodiscard]] inline std::string trim_log(std::string log, std::size_t max_log) {
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (log.size() > max_log) log = log.substr(0, max_log) + "\n[... compile log truncated]";
  return log;
}

}  // namespace detail

/// Compiles `source` for `architecture` ("sm_90", "compute_90": target_architecture) with
/// `options` and returns the image of the instance `name_expression` ("vadd",
/// "gemm<64, 4, true>") and its lowered name. `-std=c++17` is added unless `options` give a
/// standard. Never throws for a compile error: `ok` is false and `message` holds the log (at
/// most `max_log` characters of it).
[[nodiscard]] inline Compiled compile(const std::string& source, const std::string& name_expression,
                                      const std::vector<std::string>& options,
                                      const std::string& architecture, std::size_t max_log = 4000,
                                      const std::string& file_name = "aoe_kernel.cu") {
  const auto begin = std::chrono::steady_clock::now();
  Compiled out;
  std::vector<std::string> all = options;
  all.push_back("--gpu-architecture=" + architecture);
  if (std::none_of(options.begin(), options.end(),
                   [](const std::string& o) { return o.rfind("-std=", 0) == 0; })) {
    all.emplace_back("-std=c++17");
  }
  std::vector<const char*> argv;
  argv.reserve(all.size());
  for (const auto& o : all) argv.push_back(o.c_str());
  std::string joined;
  for (const auto& o : all) joined += (joined.empty() ? "" : " ") + o;

  nvrtcProgram program = nullptr;
  nvrtcResult r =
      nvrtcCreateProgram(&program, source.c_str(), file_name.c_str(), 0, nullptr, nullptr);
  if (r == NVRTC_SUCCESS) r = nvrtcAddNameExpression(program, name_expression.c_str());
  nvrtcResult compiled = NVRTC_SUCCESS;
  if (r == NVRTC_SUCCESS) {
    compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
      out.log.resize(size);
      if (nvrtcGetProgramLog(program, out.log.data()) != NVRTC_SUCCESS) out.log.clear();
      out.log = detail::trim_log(std::move(out.log), max_log);
    }
    r = compiled;
  }
  if (r == NVRTC_SUCCESS) {
    const char* lowered = nullptr;
    r = nvrtcGetLoweredName(program, name_expression.c_str(), &lowered);
    if (r == NVRTC_SUCCESS && lowered != nullptr) out.lowered_name = lowered;
  }
  if (r == NVRTC_SUCCESS) {
    out.ptx = architecture.rfind("compute_", 0) == 0;
    std::size_t size = 0;
    r = out.ptx ? nvrtcGetPTXSize(program, &size) : nvrtcGetCUBINSize(program, &size);
    if (r == NVRTC_SUCCESS) {
      out.image.resize(size);
      r = out.ptx ? nvrtcGetPTX(program, out.image.data())
                  : nvrtcGetCUBIN(program, out.image.data());
    }
  }
  if (program != nullptr) (void)nvrtcDestroyProgram(&program);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (r == NVRTC_SUCCESS) {
    out.ok = true;
    return out;
  }
  out.message = std::string("NVRTC: ") + nvrtcGetErrorString(r) + " compiling '" + name_expression +
                "' with '" + joined + "'" + (out.log.empty() ? std::string() : "\n" + out.log);
  out.image.clear();
  return out;
}

}  // namespace aoe::cuda

#endif  // AOE_MEASURE_CUDA_NVRTC_COMPILER_HPP
