// AOE's configuration file `conf/aoe.ini` (docs/cli.md#aoeini, its source
// docs/aoe-facts.md#the-configuration-file-aoeini): where it is looked for, its three keys
// (TUNING_PARALLEL_NUM, RUN_LOOP, WORK_PATH) parsed and validated with messages that name the
// file, the line and the key, and how they sit under the environment variables.
#ifndef AOE_CONFIG_AOE_INI_HPP
#define AOE_CONFIG_AOE_INI_HPP

#include "aoe/config/environment.hpp"
#include "aoe/core/error.hpp"

#include <charconv>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace aoe {

/// One value of aoe.ini as written, with the line it is on (from 1).
struct AoeIniValue {
  std::string text;
  int line = 0;
};

/// The keys of aoe.ini that OpenAOE uses, validated by parse_aoe_ini; a key the file does not
/// give is unset. `warnings` holds one line per key OpenAOE does not know (a CANN install's
/// file may hold more than these three): they are reported, not errors.
struct AoeIni {
  std::string file;                        ///< the file's name as it is reported
  std::optional<int> tuning_parallel_num;  ///< TUNING_PARALLEL_NUM, 1..64
  std::optional<int> run_loop;             ///< RUN_LOOP, 1..2048
  std::optional<AoeIniValue> work_path;    ///< WORK_PATH, as written (resolved by apply_aoe_ini)
  std::vector<std::string> warnings;
};

namespace detail {

[[nodiscard]] inline std::string_view ini_trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

[[nodiscard]] inline ErrorInfo ini_error(const std::string& file, int line, std::string_view key,
                                         const std::string& what) {
  std::string where = file + ":" + std::to_string(line) + ": ";
  if (!key.empty()) where += std::string(key) + ": ";
  return make_error(Errc::invalid_argument, where + what);
}

/// An integer key's value in [lo, hi], or an error naming the file, the line and the key.
[[nodiscard]] inline Result<int> ini_int(const std::string& file, int line, std::string_view key,
                                         std::string_view text, int lo, int hi) {
  int v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < lo || v > hi) {
    return ini_error(file, line, key,
                     "'" + std::string(text) + "': expected an integer in [" + std::to_string(lo) +
                         ", " + std::to_string(hi) + "]");
  }
  return v;
}

/// Stores `key = text` (line `line`) in `ini`: an error for a bad value or a key given twice.
[[nodiscard]] inline Result<void> ini_set(AoeIni& ini, int line, std::string_view key,
                                          std::string_view text) {
  const auto once = [&](bool given) -> Result<void> {
    if (given) return ini_error(ini.file, line, key, "given more than once");
    return {};
  };
  if (key == "TUNING_PARALLEL_NUM" || key == "RUN_LOOP") {
    const bool parallel = key == "TUNING_PARALLEL_NUM";
    auto& slot = parallel ? ini.tuning_parallel_num : ini.run_loop;
    if (auto r = once(slot.has_value()); !r) return r;
    auto n = ini_int(ini.file, line, key, text, 1, parallel ? 64 : 2048);
    if (!n) return n.error();
    slot = *n;
    return {};
  }
  if (key == "WORK_PATH") {
    if (auto r = once(ini.work_path.has_value()); !r) return r;
    if (text.empty()) return ini_error(ini.file, line, key, "expected a directory, found nothing");
    ini.work_path = AoeIniValue{std::string(text), line};
    return {};
  }
  ini.warnings.push_back(ini.file + ":" + std::to_string(line) + ": " + std::string(key) +
                         ": not a key OpenAOE reads (TUNING_PARALLEL_NUM, RUN_LOOP, WORK_PATH); "
                         "ignored");
  return {};
}

}  // namespace detail

/// Parses the text of an aoe.ini named `file` (for messages): one `KEY=VALUE` per line, spaces
/// around either ignored; blank lines, lines starting with `#` or `;` and `[section]` lines are
/// skipped. A line without `=`, an empty key, a key given twice or a value out of its range is
/// an `invalid_argument` error "<file>:<line>: <KEY>: <what was expected>".
[[nodiscard]] inline Result<AoeIni> parse_aoe_ini(std::string_view text, std::string file) {
  AoeIni ini;
  ini.file = std::move(file);
  int line = 0;
  while (!text.empty()) {
    ++line;
    const auto end = text.find('\n');
    const std::string_view raw = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const std::string_view s = detail::ini_trim(raw);
    if (s.empty() || s.front() == '#' || s.front() == ';') continue;
    if (s.front() == '[' && s.back() == ']') continue;
    const auto eq = s.find('=');
    if (eq == std::string_view::npos) {
      return detail::ini_error(ini.file, line, {},
                               "'" + std::string(s) + "': expected KEY=VALUE (docs/cli.md#aoeini)");
    }
    const std::string_view key = detail::ini_trim(s.substr(0, eq));
    if (key.empty()) return detail::ini_error(ini.file, line, {}, "expected a key before '='");
    if (auto r = detail::ini_set(ini, line, key, detail::ini_trim(s.substr(eq + 1))); !r) {
      return r.error();
    }
  }
  return ini;
}

/// Where aoe.ini is looked for, in order (the first that exists is read): as CANN installs it,
/// `${ASCEND_HOME_PATH}/tools/aoe/conf/aoe.ini` (the `${install_path}/latest/tools/aoe/conf`
/// of AOE's guide) and `${ASCEND_HOME_PATH}/conf/aoe.ini` (newer `${install_path}/cann/conf`),
/// then the same two under ASCEND_TOOLKIT_HOME when it names another directory. Empty when
/// neither variable is set.
[[nodiscard]] inline std::vector<std::filesystem::path> aoe_ini_candidates(const Environment& env) {
  std::vector<std::filesystem::path> out;
  for (const auto* root : {&env.ascend_home_path, &env.ascend_toolkit_home}) {
    if (!*root) continue;
    if (root == &env.ascend_toolkit_home && env.ascend_home_path == env.ascend_toolkit_home) {
      continue;
    }
    out.push_back(**root / "tools" / "aoe" / "conf" / "aoe.ini");
    out.push_back(**root / "conf" / "aoe.ini");
  }
  return out;
}

/// Lays `ini` under the environment: each of its keys is used unless the environment gives
/// the same setting (TUNING_PARALLEL_NUM, read through `getenv`; ASCEND_WORK_PATH for
/// WORK_PATH), so the order is environment variable > aoe.ini > default. A relative WORK_PATH
/// is taken from the working directory (AOE's `./` is where aoe runs); one that names a file
/// is an error naming the file, the line and the key.
[[nodiscard]] inline Result<void> apply_aoe_ini(const AoeIni& ini, const GetEnv& getenv,
                                                Environment& env) {
  const auto set_in_environment = [&getenv](const char* name) {
    const auto v = getenv(name);
    return v && !v->empty();
  };
  if (ini.tuning_parallel_num && !set_in_environment("TUNING_PARALLEL_NUM")) {
    env.tuning_parallel_num = *ini.tuning_parallel_num;
  }
  if (ini.run_loop) env.run_loop = *ini.run_loop;
  if (ini.work_path) {
    std::filesystem::path dir(ini.work_path->text);
    if (dir.is_relative() && !env.working_directory.empty()) dir = env.working_directory / dir;
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
      return detail::ini_error(ini.file, ini.work_path->line, "WORK_PATH",
                               "'" + ini.work_path->text + "': expected a directory, found a file");
    }
    env.ini_work_path = dir.lexically_normal();
  }
  return {};
}

}  // namespace aoe

#endif  // AOE_CONFIG_AOE_INI_HPP
