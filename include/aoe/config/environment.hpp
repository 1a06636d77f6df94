// The one place that reads environment variables: AOE's variables (docs/environment.md, their
// sources docs/aoe-facts.md#environment-variables), validated, with messages that name the
// variable and what was expected.
#ifndef AOE_CONFIG_ENVIRONMENT_HPP
#define AOE_CONFIG_ENVIRONMENT_HPP

#include "aoe/core/error.hpp"

#include <array>
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
#include <utility>

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
  /// ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME: the CANN toolkit root (set by CANN's set_env.sh),
  /// where aoe.ini is looked for (config/aoe_ini.hpp, docs/cli.md#aoeini).
  std::optional<std::filesystem::path> ascend_home_path;
  std::optional<std::filesystem::path> ascend_toolkit_home;
  /// HOME: for the default bank root ${HOME}/Ascend/latest/data/aoe/custom/op.
  std::optional<std::filesystem::path> home;
  /// REPEAT_TUNE: True re-tunes operators the bank already holds. Default False.
  bool repeat_tune = false;
  /// TE_PARALLEL_COMPILER: parallel compile processes, 1..32, default 8.
  int te_parallel_compiler = 8;
  /// TUNING_PARALLEL_NUM: threads measuring the candidates of a batch, 1..64, default 8.
  int tuning_parallel_num = 8;
  /// RUN_LOOP of aoe.ini (no environment variable): timed runs per candidate on the NPU,
  /// 1..2048; unset: the device's default (aoe::AscendOptions::repetitions). The simulator's
  /// times are exact and do not depend on it.
  std::optional<int> run_loop;
  /// WORK_PATH of aoe.ini, resolved against the working directory (apply_aoe_ini).
  std::optional<std::filesystem::path> ini_work_path;
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
  /// PROFILING_MODE: true writes msprof's files after the job (docs/reports.md#msprof-files).
  bool profiling_mode = false;
  /// PROFILING_OPTIONS: profiling's JSON, as given (parsed by aoe/report/profiling_options.hpp;
  /// read only when profiling is on).
  std::optional<std::string> profiling_options;

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

  /// Where result files go: ASCEND_WORK_PATH, else aoe.ini's WORK_PATH, else the working
  /// directory (read_environment resolved it; "." when this Environment was built by hand).
  [[nodiscard]] std::filesystem::path work_path() const {
    if (ascend_work_path) return *ascend_work_path;
    if (ini_work_path) return *ini_work_path;
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

/// Stores `text`, the value of the variable `name`, in `env`; an error naming the variable when
/// the value is invalid.
using EnvironmentSetter = Result<void> (*)(const char* name, const std::string& text,
                                           Environment& env);

/// One of AOE's variables and how its value is stored.
struct EnvironmentVariable {
  const char* name;
  EnvironmentSetter set;
};

[[nodiscard]] inline Result<void> set_aoe_mode(const char* /*name*/, const std::string& text,
                                               Environment& env) {
  if (text != "1" && text != "2" && text != "4") {
    return make_error(Errc::invalid_argument,
                      "environment variable AOE_MODE='" + text +
                          "': expected 1 (subgraph), 2 (operator) or 4 (gradient) tuning");
  }
  env.aoe_mode = text[0] - '0';
  return {};
}

[[nodiscard]] inline Result<void> set_tune_bank_path(const char* /*name*/, const std::string& text,
                                                     Environment& env) {
  std::error_code ec;
  if (!std::filesystem::is_directory(text, ec)) {
    return make_error(Errc::not_found, "environment variable TUNE_BANK_PATH='" + text +
                                           "': expected an existing directory (AOE requires "
                                           "the bank directory to exist, readable and "
                                           "writable)");
  }
  env.tune_bank_path = std::filesystem::path(text);
  return {};
}

[[nodiscard]] inline Result<void> set_ascend_work_path(const char* /*name*/,
                                                       const std::string& text, Environment& env) {
  std::error_code ec;
  if (std::filesystem::exists(text, ec) && !std::filesystem::is_directory(text, ec)) {
    return make_error(Errc::invalid_argument, "environment variable ASCEND_WORK_PATH='" + text +
                                                  "': expected a directory, found a file");
  }
  env.ascend_work_path = std::filesystem::path(text);
  return {};
}

[[nodiscard]] inline Result<void> set_repeat_tune(const char* /*name*/, const std::string& text,
                                                  Environment& env) {
  std::string lower;
  for (const char c : text) lower.push_back(static_cast<char>(std::tolower(c)));
  if (lower == "true" || lower == "1") {
    env.repeat_tune = true;
  } else if (lower == "false" || lower == "0") {
    env.repeat_tune = false;
  } else {
    return make_error(Errc::invalid_argument,
                      "environment variable REPEAT_TUNE='" + text + "': expected True or False");
  }
  return {};
}

[[nodiscard]] inline Result<void> set_profiling_mode(const char* /*name*/, const std::string& text,
                                                     Environment& env) {
  std::string lower;
  for (const char c : text) lower.push_back(static_cast<char>(std::tolower(c)));
  if (lower != "true" && lower != "false") {
    return make_error(Errc::invalid_argument,
                      "environment variable PROFILING_MODE='" + text + "': expected true or false");
  }
  env.profiling_mode = lower == "true";
  return {};
}

[[nodiscard]] inline Result<void> set_max_input_bytes(const char* /*name*/, const std::string& text,
                                                      Environment& env) {
  std::uint64_t n = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p != text.data() + text.size() || n < 1 ||
      n > (std::uint64_t{1} << 50U)) {
    return make_error(Errc::invalid_argument,
                      "environment variable AOE_MAX_INPUT_BYTES='" + text +
                          "': expected a number of bytes in [1, 2^50] (default 2147483648)");
  }
  env.max_input_bytes = n;
  return {};
}

/// An integer in [Lo, Hi], stored in `env.*Field`.
template <int Environment::*Field, int Lo, int Hi>
[[nodiscard]] Result<void> set_env_int(const char* name, const std::string& text,
                                       Environment& env) {
  auto n = env_int(name, text, Lo, Hi);
  if (!n) return n.error();
  env.*Field = *n;
  return {};
}

/// A path, stored as given in `env.*Field`.
template <std::optional<std::filesystem::path> Environment::*Field>
[[nodiscard]] Result<void> set_env_path(const char* /*name*/, const std::string& text,
                                        Environment& env) {
  env.*Field = std::filesystem::path(text);
  return {};
}

/// Text, stored as given in `env.*Field`.
template <std::optional<std::string> Environment::*Field>
[[nodiscard]] Result<void> set_env_text(const char* /*name*/, const std::string& text,
                                        Environment& env) {
  env.*Field = text;
  return {};
}

/// AOE's variables in the order they are read (the first invalid one is the error reported).
inline constexpr std::array<EnvironmentVariable, 19> environment_variables{{
    {"AOE_MODE", &set_aoe_mode},
    {"TUNE_BANK_PATH", &set_tune_bank_path},
    {"ASCEND_CACHE_PATH", &set_env_path<&Environment::ascend_cache_path>},
    {"ASCEND_WORK_PATH", &set_ascend_work_path},
    {"ASCEND_OPP_PATH", &set_env_path<&Environment::ascend_opp_path>},
    {"ASCEND_HOME_PATH", &set_env_path<&Environment::ascend_home_path>},
    {"ASCEND_TOOLKIT_HOME", &set_env_path<&Environment::ascend_toolkit_home>},
    {"HOME", &set_env_path<&Environment::home>},
    {"REPEAT_TUNE", &set_repeat_tune},
    {"TE_PARALLEL_COMPILER", &set_env_int<&Environment::te_parallel_compiler, 1, 32>},
    {"TUNING_PARALLEL_NUM", &set_env_int<&Environment::tuning_parallel_num, 1, 64>},
    {"ASCEND_DEVICE_ID", &set_env_int<&Environment::ascend_device_id, 0, 1023>},
    {"TUNE_BANK_LOCK_TIMEOUT", &set_env_int<&Environment::bank_lock_timeout, 0, 86400>},
    {"AOE_MAX_INPUT_BYTES", &set_max_input_bytes},
    {"AOE_OPENCL_PLATFORM", &set_env_text<&Environment::opencl_platform>},
    {"AOE_OPENCL_DEVICE", &set_env_text<&Environment::opencl_device>},
    {"AOE_CUDA_DEVICE", &set_env_text<&Environment::cuda_device>},
    {"PROFILING_MODE", &set_profiling_mode},
    {"PROFILING_OPTIONS", &set_env_text<&Environment::profiling_options>},
}};

/// The working directory, resolved once (std::filesystem::current_path() throws when the
/// directory was deleted).
[[nodiscard]] inline Result<std::filesystem::path> resolve_working_directory() {
  std::error_code ec;
  auto dir = std::filesystem::current_path(ec);
  if (ec) {
    return make_error(Errc::io_error, "the working directory cannot be resolved (" + ec.message() +
                                          "; was it deleted?): run from an existing directory");
  }
  return dir;
}

}  // namespace detail

/// Reads and validates AOE's environment through `getenv`. The first invalid variable is
/// returned as an `invalid_argument` (or `not_found` for a missing TUNE_BANK_PATH directory)
/// error whose message names it and says what was expected. Unset and empty variables are
/// left at their defaults.
[[nodiscard]] inline Result<Environment> read_environment(const GetEnv& getenv) {
  Environment env;
  auto working_directory = detail::resolve_working_directory();
  if (!working_directory) return working_directory.error();
  env.working_directory = std::move(*working_directory);
  for (const auto& variable : detail::environment_variables) {
    const auto text = getenv(variable.name);
    if (!text || text->empty()) continue;
    if (auto set = variable.set(variable.name, *text, env); !set) return set.error();
  }
  return env;
}

/// Reads the process environment.
[[nodiscard]] inline Result<Environment> read_environment() {
  return read_environment(process_getenv());
}

}  // namespace aoe

#endif  // AOE_CONFIG_ENVIRONMENT_HPP
