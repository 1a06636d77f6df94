// The one place that reads environment variables: AOE's variables (ascend-aoe-facts.md §2.4,
// docs/environment.md), validated, with messages that name the variable and what was expected.
#ifndef AOE_CONFIG_ENVIRONMENT_HPP
#define AOE_CONFIG_ENVIRONMENT_HPP

#include "aoe/core/error.hpp"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace aoe {

/// Looks a variable up: nullopt when it is not set. Injectable so tests need no real
/// environment.
using GetEnv = std::function<std::optional<std::string>(const char* name)>;

/// The process environment (`std::getenv`).
[[nodiscard]] inline GetEnv process_getenv() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read at start-up only
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

/// AOE's environment, validated. Unset (or empty) variables take AOE's defaults.
struct Environment {
  /// AOE_MODE: 1 subgraph, 2 operator, 4 gradient tuning; unset means no tuning mode is asked.
  std::optional<int> aoe_mode;
  /// TUNE_BANK_PATH: the custom bank root; when set it must be an existing directory.
  std::optional<std::filesystem::path> tune_bank_path;
  /// ASCEND_CACHE_PATH: shared cache root; the bank goes to ${ASCEND_CACHE_PATH}/aoe_data.
  std::optional<std::filesystem::path> ascend_cache_path;
  /// ASCEND_WORK_PATH: where result files and the workspace go; default the working directory.
  std::optional<std::filesystem::path> ascend_work_path;
  /// ASCEND_OPP_PATH: op package root; the built-in (read-only) bank is
  /// ${ASCEND_OPP_PATH}/built-in/data/op.
  std::optional<std::filesystem::path> ascend_opp_path;
  /// HOME: for the default bank root ${HOME}/Ascend/latest/data/aoe/custom/op.
  std::optional<std::filesystem::path> home;
  /// REPEAT_TUNE: True re-tunes operators the bank already holds. Default False.
  bool repeat_tune = false;
  /// TE_PARALLEL_COMPILER: parallel compile processes, 1..32, default 8.
  int te_parallel_compiler = 8;
  /// TUNING_PARALLEL_NUM: threads measuring the candidates of a batch, 1..64, default 8.
  int tuning_parallel_num = 8;
  /// ASCEND_DEVICE_ID: logical device id, >= 0, default 0.
  int ascend_device_id = 0;
  /// TUNE_BANK_LOCK_TIMEOUT: seconds a store waits for a bank file's lock held by another
  /// process before it fails naming the lock file, 0..86400, default 300 (OpenAOE's own).
  int bank_lock_timeout = 300;
  /// AOE_OPENCL_PLATFORM: the OpenCL platform, an index or part of its name; unset: the first
  /// platform that has the device asked for (measure/opencl/device.hpp).
  std::optional<std::string> opencl_platform;
  /// AOE_OPENCL_DEVICE: the OpenCL device, an index or part of its name; unset: the first.
  std::optional<std::string> opencl_device;
  /// AOE_CUDA_DEVICE: the CUDA device, an ordinal or part of its name; unset: device 0
  /// (measure/cuda/device.hpp).
  std::optional<std::string> cuda_device;

  /// The custom operator bank root: TUNE_BANK_PATH, else ${ASCEND_CACHE_PATH}/aoe_data, else
  /// ${HOME}/Ascend/latest/data/aoe/custom/op (files go to <root>/<soc>/unified_bank/).
  [[nodiscard]] std::filesystem::path op_bank_root() const {
    if (tune_bank_path) return *tune_bank_path;
    if (ascend_cache_path) return *ascend_cache_path / "aoe_data";
    return home.value_or(std::filesystem::path(".")) / "Ascend" / "latest" / "data" / "aoe" /
           "custom" / "op";
  }
  /// The graph bank root, same priority (.../custom/graph for the default).
  [[nodiscard]] std::filesystem::path graph_bank_root() const {
    if (tune_bank_path) return *tune_bank_path;
    if (ascend_cache_path) return *ascend_cache_path / "aoe_data";
    return home.value_or(std::filesystem::path(".")) / "Ascend" / "latest" / "data" / "aoe" /
           "custom" / "graph";
  }
  /// The built-in bank root, if ASCEND_OPP_PATH is set.
  [[nodiscard]] std::optional<std::filesystem::path> builtin_bank_root() const {
    if (!ascend_opp_path) return std::nullopt;
    return *ascend_opp_path / "built-in" / "data" / "op";
  }
  /// AOE_MAX_INPUT_BYTES: the largest input file read (model, profile, bank, ...), in bytes;
  /// unset: 2 GiB (docs/reliability.md#input-limits).
  std::optional<std::uint64_t> max_input_bytes;
  /// The working directory, resolved once by read_environment (empty when built by hand).
  std::filesystem::path working_directory;

  /// Where result files go: ASCEND_WORK_PATH, else the working directory (read_environment
  /// resolved it; "." when this Environment was built by hand).
  [[nodiscard]] std::filesystem::path work_path() const {
    if (ascend_work_path) return *ascend_work_path;
    return working_directory.empty() ? std::filesystem::path(".") : working_directory;
  }
};

namespace detail {

[[nodiscard]] inline Result<int> env_int(const char* name, const std::string& text, int lo,
                                         int hi) {
  int v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [p, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || p != last || v < lo || v > hi) {
    return make_error(Errc::invalid_argument, std::string("environment variable ") + name + "='" +
                                                  text + "': expected an integer in [" +
                                                  std::to_string(lo) + ", " + std::to_string(hi) +
                                                  "]");
  }
  return v;
}

}  // namespace detail

/// Reads and validates AOE's environment through `getenv`. The first invalid variable is
/// returned as an `invalid_argument` (or `not_found` for a missing TUNE_BANK_PATH directory)
/// error whose message names it and says what was expected.
[[nodiscard]] inline Result<Environment> read_environment(const GetEnv& getenv) {
  Environment env;
  {
    // Once, here: std::filesystem::current_path() throws when the directory was deleted.
    std::error_code ec;
    env.working_directory = std::filesystem::current_path(ec);
    if (ec) {
      return make_error(Errc::io_error, "the working directory cannot be resolved (" +
                                            ec.message() +
                                            "; was it deleted?): run from an existing directory");
    }
  }
  const auto get = [&](const char* name) -> std::optional<std::string> {
    auto v = getenv(name);
    if (v && v->empty()) return std::nullopt;
    return v;
  };
  if (auto v = get("AOE_MODE")) {
    if (*v != "1" && *v != "2" && *v != "4") {
      return make_error(Errc::invalid_argument,
                        "environment variable AOE_MODE='" + *v +
                            "': expected 1 (subgraph), 2 (operator) or 4 (gradient) tuning");
    }
    env.aoe_mode = (*v)[0] - '0';
  }
  if (auto v = get("TUNE_BANK_PATH")) {
    std::error_code ec;
    if (!std::filesystem::is_directory(*v, ec)) {
      return make_error(Errc::not_found, "environment variable TUNE_BANK_PATH='" + *v +
                                             "': expected an existing directory (AOE requires "
                                             "the bank directory to exist, readable and "
                                             "writable)");
    }
    env.tune_bank_path = std::filesystem::path(*v);
  }
  if (auto v = get("ASCEND_CACHE_PATH")) env.ascend_cache_path = std::filesystem::path(*v);
  if (auto v = get("ASCEND_WORK_PATH")) {
    std::error_code ec;
    if (std::filesystem::exists(*v, ec) && !std::filesystem::is_directory(*v, ec)) {
      return make_error(Errc::invalid_argument, "environment variable ASCEND_WORK_PATH='" + *v +
                                                    "': expected a directory, found a file");
    }
    env.ascend_work_path = std::filesystem::path(*v);
  }
  if (auto v = get("ASCEND_OPP_PATH")) env.ascend_opp_path = std::filesystem::path(*v);
  if (auto v = get("HOME")) env.home = std::filesystem::path(*v);
  if (auto v = get("REPEAT_TUNE")) {
    std::string lower;
    for (const char c : *v) lower.push_back(static_cast<char>(std::tolower(c)));
    if (lower == "true" || lower == "1") {
      env.repeat_tune = true;
    } else if (lower == "false" || lower == "0") {
      env.repeat_tune = false;
    } else {
      return make_error(Errc::invalid_argument,
                        "environment variable REPEAT_TUNE='" + *v + "': expected True or False");
    }
  }
  if (auto v = get("TE_PARALLEL_COMPILER")) {
    auto n = detail::env_int("TE_PARALLEL_COMPILER", *v, 1, 32);
    if (!n) return n.error();
    env.te_parallel_compiler = *n;
  }
  if (auto v = get("TUNING_PARALLEL_NUM")) {
    auto n = detail::env_int("TUNING_PARALLEL_NUM", *v, 1, 64);
    if (!n) return n.error();
    env.tuning_parallel_num = *n;
  }
  if (auto v = get("ASCEND_DEVICE_ID")) {
    auto n = detail::env_int("ASCEND_DEVICE_ID", *v, 0, 1023);
    if (!n) return n.error();
    env.ascend_device_id = *n;
  }
  if (auto v = get("TUNE_BANK_LOCK_TIMEOUT")) {
    auto n = detail::env_int("TUNE_BANK_LOCK_TIMEOUT", *v, 0, 86400);
    if (!n) return n.error();
    env.bank_lock_timeout = *n;
  }
  if (auto v = get("AOE_MAX_INPUT_BYTES")) {
    std::uint64_t n = 0;
    const auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || p != v->data() + v->size() || n < 1 || n > (std::uint64_t{1} << 50U)) {
      return make_error(Errc::invalid_argument,
                        "environment variable AOE_MAX_INPUT_BYTES='" + *v +
                            "': expected a number of bytes in [1, 2^50] (default 2147483648)");
    }
    env.max_input_bytes = n;
  }
  if (auto v = get("AOE_OPENCL_PLATFORM")) env.opencl_platform = *v;
  if (auto v = get("AOE_OPENCL_DEVICE")) env.opencl_device = *v;
  if (auto v = get("AOE_CUDA_DEVICE")) env.cuda_device = *v;
  return env;
}

/// Reads the process environment.
[[nodiscard]] inline Result<Environment> read_environment() {
  return read_environment(process_getenv());
}

}  // namespace aoe

#endif  // AOE_CONFIG_ENVIRONMENT_HPP
