// CLBlast on one OpenCL device, for bench/opencl_bench: its SGEMM routine as users call it, its
// Xgemm kernel alone with given parameters (the kernel its tuner times), and its tuner run up to
// the end of its fixed set.
#ifndef AOE_BENCH_SUPPORT_CLBLAST_GEMM_HPP
#define AOE_BENCH_SUPPORT_CLBLAST_GEMM_HPP

#include "gemm_bench.hpp"
#include <aoe/measure/opencl/device.hpp>
#include <aoe/measure/opencl/opencl_error.hpp>
#include <aoe/measure/statistics.hpp>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <clblast.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

extern char** environ;

namespace aoe_bench {

using ClblastParameters = std::unordered_map<std::string, std::size_t>;

/// "MWG=64 NWG=64 ..." in name order.
inline std::string to_string(const ClblastParameters& parameters) {
  std::vector<std::string> items;
  for (const auto& [k, v] : parameters) items.push_back(k + "=" + std::to_string(v));
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

/// CLBlast's single-precision GEMM on `device`, N x N x N, on buffers of its own.
class ClblastGemm {
 public:
  ClblastGemm(const cl::Device& device, std::size_t n)
      : device_(device),
        context_(device),
        queue_(context_, device, CL_QUEUE_PROFILING_ENABLE),
        n_(n),
        a_(context_, CL_MEM_READ_WRITE, n * n * sizeof(float)),
        b_(context_, CL_MEM_READ_WRITE, n * n * sizeof(float)),
        c_(context_, CL_MEM_READ_WRITE, n * n * sizeof(float)) {
    const std::vector<float> host(n * n, 0.5f);
    for (auto* buffer : {&a_, &b_, &c_}) {
      const cl_int err =
          queue_.enqueueWriteBuffer(*buffer, CL_TRUE, 0, host.size() * sizeof(float), host.data());
      if (err != CL_SUCCESS) {
        error_ = "uploading CLBlast's " + std::to_string(n) +
                 "^2 operands: " + aoe::opencl::error_name(err);
        return;
      }
    }
    ok_ = clblast::RetrieveParameters(device_(), "Xgemm", clblast::Precision::kSingle,
                                      shipped_xgemm_) == clblast::StatusCode::kSuccess &&
          clblast::RetrieveParameters(device_(), "GemmRoutine", clblast::Precision::kSingle,
                                      shipped_routine_) == clblast::StatusCode::kSuccess;
    if (!ok_) error_ = "clblast::RetrieveParameters failed";
  }

  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  /// The Xgemm parameters CLBlast ships for this device (its database).
  [[nodiscard]] const ClblastParameters& shipped_xgemm() const { return shipped_xgemm_; }

  /// The row-major SGEMM routine C = A B as users call it, with the parameters CLBlast ships
  /// (at small sizes it runs XgemmDirect, which clblast_tuner_xgemm does not tune): seconds
  /// on the host from the call to the queue's end (the routine may run several kernels and
  /// its event covers only the last), median of `runs` after one untimed call.
  std::optional<double> routine_seconds(int runs) {
    if (!set("Xgemm", shipped_xgemm_) || !set("GemmRoutine", shipped_routine_)) return {};
    return timed(runs, clblast::Layout::kRowMajor, clblast::Transpose::kNo, false);
  }

  /// The Xgemm kernel alone with `parameters`: C = A B^T in column-major, the layout Xgemm
  /// (GEMMK 0) computes in, so that the routine runs no pre- or post-processing kernel, and
  /// GemmRoutine's XGEMM_MIN_INDIRECT_SIZE set to 1 so that it never picks XgemmDirect. The
  /// kernel's profiling-event seconds, as clblast_tuner_xgemm times it, median of `runs`
  /// after one untimed call (which builds the program the first time).
  std::optional<double> xgemm_seconds(const ClblastParameters& parameters, int runs) {
    if (!set("Xgemm", parameters) || !set("GemmRoutine", {{"XGEMM_MIN_INDIRECT_SIZE", 1}})) {
      return {};
    }
    return timed(runs, clblast::Layout::kColMajor, clblast::Transpose::kYes, true);
  }

 private:
  bool set(const std::string& kernel, const ClblastParameters& parameters) {
    const auto status =
        clblast::OverrideParameters(device_(), kernel, clblast::Precision::kSingle, parameters);
    if (status == clblast::StatusCode::kSuccess) return true;
    error_ = "clblast::OverrideParameters(" + kernel + ", " + to_string(parameters) +
             ") failed: " + std::to_string(static_cast<int>(status));
    return false;
  }

  std::optional<double> timed(int runs, clblast::Layout layout, clblast::Transpose b_transpose,
                              bool event_time) {
    std::vector<double> seconds;
    for (int r = -1; r < runs; ++r) {
      cl_event event = nullptr;
      cl_command_queue q = queue_();
      const auto t0 = std::chrono::steady_clock::now();
      const auto status =
          clblast::Gemm<float>(layout, clblast::Transpose::kNo, b_transpose, n_, n_, n_, 1.0f, a_(),
                               0, n_, b_(), 0, n_, 0.0f, c_(), 0, n_, &q, &event);
      if (status != clblast::StatusCode::kSuccess) {
        error_ = "clblast::Gemm failed: " + std::to_string(static_cast<int>(status));
        return {};
      }
      clWaitForEvents(1, &event);
      queue_.finish();
      const double host =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      clReleaseEvent(event);
      if (r >= 0) seconds.push_back(event_time ? static_cast<double>(end - start) * 1e-9 : host);
    }
    return aoe::median(seconds);
  }

  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  std::size_t n_;
  cl::Buffer a_, b_, c_;
  ClblastParameters shipped_xgemm_, shipped_routine_;
  bool ok_ = false;
  std::string error_;
};

/// What clblast_tuner_xgemm's fixed set found.
struct ClblastTunerRun {
  std::size_t configurations = 0;
  double wall_seconds = 0;  ///< from its start to its JSON (the fixed set's end)
  std::string json;         ///< its file
  /// Its best configurations by its own single timing, fastest first, and their times (s).
  std::vector<ClblastParameters> top;
  std::vector<double> seconds;
  std::string error;  ///< why there is nothing (empty when there is)
};

/// The best `keep` distinct configurations of a clblast_tuner_xgemm JSON file (its "results":
/// "parameters" and "time" in milliseconds).
inline ClblastTunerRun read_clblast_tuner_json(const std::string& path, std::size_t keep) {
  ClblastTunerRun run;
  run.json = path;
  const auto root = read_results_json(path);
  if (!root) {
    run.error = path + ": not a CLBlast tuner JSON file";
    return run;
  }
  std::vector<std::pair<double, ClblastParameters>> all;
  for (const auto& r : root->at("results").as_array()) {
    ClblastParameters p;
    for (const auto& kv : r.at("parameters").as_object()) {
      p[std::string(kv.key())] = static_cast<std::size_t>(kv.value().to_number<double>());
    }
    all.emplace_back(r.at("time").to_number<double>() * 1e-3, std::move(p));
  }
  run.configurations = all.size();
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [seconds, p] : all) {
    if (run.top.size() == keep) break;
    if (std::find(run.top.begin(), run.top.end(), p) != run.top.end()) continue;
    run.top.push_back(std::move(p));
    run.seconds.push_back(seconds);
  }
  if (run.top.empty()) run.error = path + ": no results";
  return run;
}

/// Runs `clblast_tuner_xgemm -m n -n n -k n` in `dir` (its console output in tuner.log) as its
/// users run it and stops it once it has written the JSON of its fixed set
/// (clblast_xgemm_1_32.json): the random phases that follow sample a space of millions of
/// configurations and would not end within a bench. Environment: this process's
/// (POCL_KERNEL_CACHE=0 where the caller set it).
inline ClblastTunerRun run_clblast_tuner(const std::filesystem::path& dir, std::size_t n,
                                         std::size_t keep) {
  std::filesystem::create_directories(dir);
  const auto json = dir / "clblast_xgemm_1_32.json";
  std::filesystem::remove(json);
  const std::string size = std::to_string(n);
  const std::string log = (dir / "tuner.log").string();
  const std::string script = "cd '" + dir.string() + "' && exec clblast_tuner_xgemm -m " + size +
                             " -n " + size + " -k " + size + " > '" + log + "' 2>&1";
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  ClblastTunerRun run;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    run.error = "could not start clblast_tuner_xgemm";
    return run;
  }
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, WNOHANG) == pid) {  // ended by itself (or failed)
      run = read_clblast_tuner_json(json.string(), keep);
      break;
    }
    if (std::filesystem::exists(json)) {
      run = read_clblast_tuner_json(json.string(), keep);  // complete once it parses
      if (run.error.empty()) {
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!run.error.empty()) run.error += " (clblast_tuner_xgemm's output: " + log + ")";
  return run;
}

}  // namespace aoe_bench

#endif  // AOE_BENCH_SUPPORT_CLBLAST_GEMM_HPP
