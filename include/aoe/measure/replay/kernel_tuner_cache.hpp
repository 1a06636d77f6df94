// Reads Kernel Tuner cache files (kernel_tuner/util.py: process_cache, store_cache;
// doc/source/cache_files.rst) into a Recording.
#ifndef AOE_MEASURE_REPLAY_KERNEL_TUNER_CACHE_HPP
#define AOE_MEASURE_REPLAY_KERNEL_TUNER_CACHE_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/replay/detail/json_util.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/parameter.hpp"
#include "aoe/space/space.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/status.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::replay {

/// How Kernel Tuner's error markers (an entry's objective is a string) map onto statuses.
/// Kernel Tuner writes "InvalidConfig" when a configuration was tried and rejected for its
/// resources (e.g. too much shared memory at compile time), "CompilationFailedConfig" when it
/// did not build and "RuntimeFailedConfig" when the launch failed (too many resources
/// requested, OUT_OF_RESOURCES). Configurations that break the kernel's restrictions are not
/// in the file at all. Mapping: InvalidConfig and CompilationFailedConfig -> `compile`
/// (the configuration could not be built for this device), RuntimeFailedConfig -> `runtime`;
/// any other marker -> `runtime`, with the marker kept in the entry.
[[nodiscard]] inline Status kernel_tuner_status(std::string_view marker) noexcept {
  if (marker == "InvalidConfig" || marker == "CompilationFailedConfig") return Status::compile;
  return Status::runtime;
}

namespace detail {

// Whether token (from a cache key) spells `level` as Python's str() would.
[[nodiscard]] inline bool key_token_matches(std::string_view token, const Value& level) {
  if (level.is_text()) return token == level.as_text();
  if (token == "True") return level.as_real() == 1;
  if (token == "False") return level.as_real() == 0;
  const std::string t(token);
  char* end = nullptr;
  const double x = std::strtod(t.c_str(), &end);
  return end != t.c_str() && *end == '\0' && x == level.as_real();
}

}  // namespace detail

namespace detail {

/// The parameters' names: `tune_params_keys` (each once), else the order of `tune_params`.
[[nodiscard]] inline Result<std::vector<std::string>> cache_parameter_names(
    const boost::json::object& top, const boost::json::object& params, const std::string& path) {
  std::vector<std::string> keys;
  const auto* k = top.if_contains("tune_params_keys");
  if (k == nullptr) {
    for (const auto& kv : params) keys.emplace_back(kv.key());
    return keys;
  }
  const auto* arr = k->if_array();
  if (arr == nullptr) return schema_error(path, "/tune_params_keys", "an array of names", k);
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto* s = (*arr)[i].if_string();
    if (s == nullptr) {
      return schema_error(path, "/tune_params_keys/" + std::to_string(i), "a string", &(*arr)[i]);
    }
    if (std::find(keys.begin(), keys.end(), std::string_view(*s)) != keys.end()) {
      return schema_error(
          path, "/tune_params_keys/" + std::to_string(i),
          "a parameter name not listed before ('" + std::string(*s) + "' is listed twice)");
    }
    keys.emplace_back(*s);
  }
  return keys;
}

/// The parameters named `keys`, with their values from `tune_params`.
[[nodiscard]] inline Result<std::vector<Parameter>> cache_parameters(
    const boost::json::object& params, const std::vector<std::string>& keys,
    const std::string& path) {
  std::vector<Parameter> parameters;
  for (const auto& key : keys) {
    const std::string pointer = "/tune_params/" + pointer_token(key);
    const auto* list_value = params.if_contains(key);
    if (list_value == nullptr) {
      return schema_error(path, pointer, "the values of '" + key + "' (named in tune_params_keys)");
    }
    const auto* list = list_value->if_array();
    if (list == nullptr || list->empty()) {
      return schema_error(path, pointer, "a non-empty array of values", list_value);
    }
    std::vector<Value> levels;
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto v = level((*list)[i]);
      if (!v) {
        return schema_error(path, pointer + "/" + std::to_string(i),
                            "a number, a string or a boolean", &(*list)[i]);
      }
      levels.push_back(std::move(*v));
    }
    try {
      parameters.push_back(aoe::values(key, std::move(levels)));
    } catch (const Error& e) {
      return make_error(Errc::schema_error, path + ": " + pointer + ": " + e.what());
    }
  }
  return parameters;
}

/// The objective's name ("time" by default); an objective that is maximised is unsupported.
[[nodiscard]] inline Result<std::string> cache_objective(const boost::json::object& top,
                                                         const std::string& path) {
  std::string objective = "time";
  if (const auto* o = top.if_contains("objective")) {
    const auto* s = o->if_string();
    if (s == nullptr) return schema_error(path, "/objective", "a string", o);
    objective = std::string(*s);
  }
  if (const auto* h = top.if_contains("objective_higher_is_better")) {
    if (h->is_bool() && h->get_bool()) {
      return make_error(Errc::unsupported,
                        path + ": /objective_higher_is_better: objective '" + objective +
                            "' is maximised; replay minimises (record a time objective)");
    }
  }
  return objective;
}

/// The configuration of the cache entry `entry` under `key` (at `pointer`): from the entry's
/// parameter fields, else from the key's comma-separated tokens.
[[nodiscard]] inline Result<Configuration> cache_entry_configuration(
    const boost::json::object& entry, const std::string& key, const std::string& pointer,
    const Space& space, const std::string& path) {
  std::vector<std::string_view> tokens;
  for (std::size_t start = 0;;) {
    const auto comma = key.find(',', start);
    tokens.emplace_back(std::string_view(key).substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  Configuration c(space.dimensions(), 0);
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    const auto& p = space.parameter(d);
    std::optional<std::uint32_t> index;
    if (const auto* field = entry.if_contains(p.name())) {
      const auto v = level(*field);
      if (v) index = p.find(*v);
      if (!index) {
        return schema_error(path, pointer + "/" + pointer_token(p.name()),
                            "one of the values of tune_params/" + p.name(), field);
      }
    } else if (tokens.size() == space.dimensions()) {
      for (std::uint32_t i = 0; i < p.size() && !index; ++i) {
        if (key_token_matches(tokens[d], p.level(i))) index = i;
      }
      if (!index) {
        return make_error(Errc::schema_error, path + ": " + pointer + ": the key's value '" +
                                                  std::string(tokens[d]) +
                                                  "' is not a value of tune_params/" + p.name());
      }
    } else {
      return make_error(Errc::schema_error, path + ": " + pointer + ": expected a field '" +
                                                p.name() + "' or a key of " +
                                                std::to_string(space.dimensions()) +
                                                " comma-separated values");
    }
    c[d] = *index;
  }
  return c;
}

/// The energy of a valid cache entry, where it has one: joules per run from `energy`,
/// `nvml_energy` or `ps_energy` (the first present), watts from the matching `power` field or,
/// without one, joules over the entry's time.
[[nodiscard]] inline std::optional<ErrorInfo> cache_entry_energy(const boost::json::object& entry,
                                                                 RecordedEntry& e,
                                                                 const std::string& pointer,
                                                                 const std::string& path) {
  if (e.status != Status::correct) return std::nullopt;
  for (const auto& [joules, watts] :
       {std::pair{"energy", "power"}, std::pair{"nvml_energy", "nvml_power"},
        std::pair{"ps_energy", "ps_power"}}) {
    const auto* j = entry.if_contains(joules);
    if (j == nullptr) continue;
    const auto x = number(*j);
    if (!x || *x < 0) {
      return schema_error(path, pointer + "/" + joules, "a non-negative number (joules)", j);
    }
    Energy energy{*x, e.value > 0 ? *x / e.value : 0, TimingKind::measured};
    if (const auto* w = entry.if_contains(watts)) {
      const auto y = number(*w);
      if (!y || *y < 0) {
        return schema_error(path, pointer + "/" + watts, "a non-negative number (watts)", w);
      }
      energy.watts = *y;
    }
    e.energy = energy;
    return std::nullopt;
  }
  return std::nullopt;
}

/// What the cache entry `entry` (at `pointer`) measured: the objective (times `scale`) or its
/// error marker, the samples and the compile, verification and benchmark times (milliseconds in
/// the file, seconds here).
[[nodiscard]] inline Result<RecordedEntry> cache_entry_measurement(const boost::json::object& entry,
                                                                   const std::string& objective,
                                                                   double scale,
                                                                   const std::string& pointer,
                                                                   const std::string& path) {
  RecordedEntry e;
  const auto* objective_value = entry.if_contains(objective);
  if (objective_value == nullptr) {
    return schema_error(path, pointer + "/" + pointer_token(objective),
                        "the objective (a number, or an error marker string)");
  }
  if (const auto x = number(*objective_value)) {
    e.value = *x * scale;
  } else if (const auto* marker = objective_value->if_string()) {
    e.marker = std::string(*marker);
    e.status = kernel_tuner_status(e.marker);
  } else {
    return schema_error(path, pointer + "/" + pointer_token(objective),
                        "a number or an error marker string", objective_value);
  }
  if (const auto* times = entry.if_contains("times")) {
    const auto* arr = times->if_array();
    if (arr == nullptr) return schema_error(path, pointer + "/times", "an array", times);
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const auto x = number((*arr)[i]);
      if (!x) {
        return schema_error(path, pointer + "/times/" + std::to_string(i), "a number", &(*arr)[i]);
      }
      e.samples.push_back(*x * 1e-3);
    }
  }
  const auto read_ms = [&](const char* field, double& out) -> std::optional<ErrorInfo> {
    if (const auto* v = entry.if_contains(field)) {
      const auto x = number(*v);
      if (!x) return schema_error(path, pointer + "/" + field, "a number (milliseconds)", v);
      out = *x * 1e-3;
    }
    return std::nullopt;
  };
  if (auto err = cache_entry_energy(entry, e, pointer, path)) return *err;
  if (auto err = read_ms("compile_time", e.compile_seconds)) return *err;
  if (auto err = read_ms("verification_time", e.verification_seconds)) return *err;
  if (entry.contains("benchmark_time")) {
    double b = 0;
    if (auto err = read_ms("benchmark_time", b)) return *err;
    e.benchmark_seconds = b;
  }
  return e;
}

}  // namespace detail

/// A Recording from a parsed Kernel Tuner cache (`root`), read from `path` (for messages).
/// The parameters are `tune_params` in `tune_params_keys` order; each entry's configuration is
/// read from its parameter fields (or, where absent, from its comma-joined key); the objective
/// is `objective` (default "time"; milliseconds, stored as seconds). An objective that is
/// higher-is-better is `Errc::unsupported`. Errors name the file and the JSON pointer.
[[nodiscard]] inline Result<Recording> load_kernel_tuner_cache(const boost::json::value& root,
                                                               const std::string& path,
                                                               std::string name = {}) {
  using detail::schema_error;
  const auto* top = root.if_object();
  if (top == nullptr) return schema_error(path, "", "a JSON object (a Kernel Tuner cache)", &root);
  const auto* params_value = top->if_contains("tune_params");
  if (params_value == nullptr) return schema_error(path, "/tune_params", "an object");
  const auto* params = params_value->if_object();
  if (params == nullptr) return schema_error(path, "/tune_params", "an object", params_value);
  auto keys = detail::cache_parameter_names(*top, *params, path);
  if (!keys) return keys.error();
  auto parameters = detail::cache_parameters(*params, *keys, path);
  if (!parameters) return parameters.error();
  auto objective = detail::cache_objective(*top, path);
  if (!objective) return objective.error();
  const double scale = *objective == "time" ? 1e-3 : 1.0;  // Kernel Tuner records milliseconds

  const auto* cache_value = top->if_contains("cache");
  if (cache_value == nullptr) return schema_error(path, "/cache", "an object of entries");
  const auto* cache = cache_value->if_object();
  if (cache == nullptr) return schema_error(path, "/cache", "an object of entries", cache_value);

  Recording recording(name.empty() ? detail::stem(path) : std::move(name), path,
                      std::move(*parameters));
  if (const auto* d = top->if_contains("device_name"); d != nullptr && d->is_string()) {
    recording.device = std::string(d->get_string());
  }
  if (const auto* k = top->if_contains("kernel_name"); k != nullptr && k->is_string()) {
    recording.kernel = std::string(k->get_string());
  }
  recording.objective = *objective;
  if (const auto* k = top->if_contains("energy_kind"); k != nullptr) {
    const auto kind = k->is_string() ? timing_kind_from(k->get_string()) : std::nullopt;
    if (!kind) return schema_error(path, "/energy_kind", "\"simulated\" or \"measured\"", k);
    recording.energy_kind = *kind;
  }
  const Space& space = recording.space();
  for (const auto& kv : *cache) {
    const std::string key(kv.key());
    const std::string pointer = "/cache/" + detail::pointer_token(key);
    const auto* entry = kv.value().if_object();
    if (entry == nullptr) return schema_error(path, pointer, "an object", &kv.value());
    auto c = detail::cache_entry_configuration(*entry, key, pointer, space, path);
    if (!c) return c.error();
    auto e = detail::cache_entry_measurement(*entry, *objective, scale, pointer, path);
    if (!e) return e.error();
    if (e->energy) e->energy->kind = recording.energy_kind;
    if (!recording.add(*c, std::move(*e))) {
      return make_error(Errc::schema_error, path + ": " + pointer + ": configuration " +
                                                space.to_string(*c) + " is recorded twice");
    }
  }
  (void)recording.baseline();
  return recording;
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_KERNEL_TUNER_CACHE_HPP
