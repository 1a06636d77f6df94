// Reads T4 results files (Kernel Tuner's schema/T4/1.0.0/results-schema.json, also written by
// KTT and read by the autotuning methodology package) into a Recording.
#ifndef AOE_MEASURE_REPLAY_T4_RESULTS_HPP
#define AOE_MEASURE_REPLAY_T4_RESULTS_HPP

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
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::replay {

namespace detail {

// Seconds per unit: "ms", "milliseconds", "s", "us", "µs", "microseconds", "ns", ...
[[nodiscard]] inline std::optional<double> seconds_per(std::string_view unit) {
  if (unit == "s" || unit == "seconds" || unit == "sec") return 1.0;
  if (unit == "ms" || unit == "milliseconds") return 1e-3;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "microseconds") return 1e-6;
  if (unit == "ns" || unit == "nanoseconds") return 1e-9;
  return std::nullopt;
}

}  // namespace detail

namespace detail {

/// Seconds per time unit of the file: `metadata.timeunit`, milliseconds by default.
[[nodiscard]] inline Result<double> t4_time_unit(const boost::json::object& top,
                                                 const std::string& path) {
  double unit = 1e-3;
  if (const auto* meta = top.if_contains("metadata"); meta != nullptr && meta->is_object()) {
    if (const auto* tu = meta->get_object().if_contains("timeunit")) {
      const auto* s = tu->if_string();
      const auto scale = s != nullptr ? seconds_per(*s) : std::nullopt;
      if (!scale) {
        return schema_error(path, "/metadata/timeunit",
                            "one of nanoseconds, microseconds, milliseconds, seconds", tu);
      }
      unit = *scale;
    }
  }
  return unit;
}

/// The parameters (pass 1): their `names` from the first result's configuration, their values
/// those that occur in any result, sorted when they are all numbers.
[[nodiscard]] inline Result<std::vector<Parameter>> t4_parameters(const boost::json::array& results,
                                                                  const std::string& path,
                                                                  std::vector<std::string>& names) {
  std::vector<std::vector<Value>> levels;
  for (std::size_t r = 0; r < results.size(); ++r) {
    const std::string pointer = "/results/" + std::to_string(r);
    const auto* result = results[r].if_object();
    if (result == nullptr) return schema_error(path, pointer, "an object", &results[r]);
    const auto* cv = result->if_contains("configuration");
    const auto* config = cv != nullptr ? cv->if_object() : nullptr;
    if (config == nullptr) return schema_error(path, pointer + "/configuration", "an object", cv);
    if (r == 0) {
      for (const auto& kv : *config) names.emplace_back(kv.key());
      levels.resize(names.size());
    }
    if (config->size() != names.size()) {
      return make_error(Errc::schema_error, path + ": " + pointer + "/configuration: expected " +
                                                std::to_string(names.size()) +
                                                " parameters, as in /results/0/configuration");
    }
    for (std::size_t d = 0; d < names.size(); ++d) {
      const std::string p = pointer + "/configuration/" + pointer_token(names[d]);
      const auto* v = config->if_contains(names[d]);
      if (v == nullptr) return schema_error(path, p, "a value for parameter '" + names[d] + "'");
      auto value = level(*v);
      if (!value) return schema_error(path, p, "a number, a string or a boolean", v);
      if (std::find(levels[d].begin(), levels[d].end(), *value) == levels[d].end()) {
        levels[d].push_back(std::move(*value));
      }
    }
  }
  if (names.empty()) return schema_error(path, "/results", "at least one result");
  std::vector<Parameter> parameters;
  for (std::size_t d = 0; d < names.size(); ++d) {
    auto& l = levels[d];
    if (std::all_of(l.begin(), l.end(), [](const Value& v) { return v.is_number(); })) {
      std::sort(l.begin(), l.end(),
                [](const Value& a, const Value& b) { return a.as_real() < b.as_real(); });
    }
    try {
      parameters.push_back(aoe::values(names[d], std::move(l)));
    } catch (const Error& e) {
      return make_error(Errc::schema_error, path + ": /results: " + e.what());
    }
  }
  return parameters;
}

/// A result's `times` (at `pointer`): compilation and validation time, and the runtimes as
/// samples, in `unit`s.
[[nodiscard]] inline Result<void> t4_times(const boost::json::object& result,
                                           const std::string& pointer, double unit,
                                           const std::string& path, RecordedEntry& e) {
  const auto* tv = result.if_contains("times");
  if (tv == nullptr) return {};
  const auto* times = tv->if_object();
  if (times == nullptr) return schema_error(path, pointer + "/times", "an object", tv);
  const auto read = [&](const char* field, double& out) -> std::optional<ErrorInfo> {
    if (const auto* v = times->if_contains(field)) {
      const auto x = number(*v);
      if (!x) return schema_error(path, pointer + "/times/" + field, "a number", v);
      out = *x * unit;
    }
    return std::nullopt;
  };
  if (auto err = read("compilation_time", e.compile_seconds)) return *err;
  if (auto err = read("validation", e.verification_seconds)) return *err;
  if (const auto* rt = times->if_contains("runtimes")) {
    const auto* arr = rt->if_array();
    if (arr == nullptr) return schema_error(path, pointer + "/times/runtimes", "an array", rt);
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const auto x = number((*arr)[i]);
      if (!x) {
        return schema_error(path, pointer + "/times/runtimes/" + std::to_string(i), "a number",
                            &(*arr)[i]);
      }
      e.samples.push_back(*x * unit);
    }
  }
  return {};
}

/// A correct result's value: the measurement named by its first `objectives` entry ("time" by
/// default), in its `unit` or in `unit`; else the mean of the runtimes (`samples`).
[[nodiscard]] inline Result<double> t4_value(const boost::json::object& result,
                                             const std::string& pointer, double unit,
                                             const std::string& path,
                                             const std::vector<double>& samples) {
  std::string objective = "time";
  if (const auto* ov = result.if_contains("objectives")) {
    if (const auto* arr = ov->if_array();
        arr != nullptr && !arr->empty() && (*arr)[0].is_string()) {
      objective = std::string((*arr)[0].get_string());
    }
  }
  std::optional<double> value;
  if (const auto* mv = result.if_contains("measurements")) {
    const auto* arr = mv->if_array();
    if (arr == nullptr) return schema_error(path, pointer + "/measurements", "an array", mv);
    for (std::size_t i = 0; i < arr->size() && !value; ++i) {
      const auto* m = (*arr)[i].if_object();
      if (m == nullptr) continue;
      const auto* n = m->if_contains("name");
      if (n == nullptr || !n->is_string() || n->get_string() != objective) continue;
      const std::string mp = pointer + "/measurements/" + std::to_string(i);
      const auto* v = m->if_contains("value");
      const auto x = v != nullptr ? number(*v) : std::nullopt;
      if (!x) return schema_error(path, mp + "/value", "a number", v);
      double scale = unit;
      if (const auto* u = m->if_contains("unit");
          u != nullptr && u->is_string() && !u->get_string().empty()) {
        const auto s = seconds_per(u->get_string());
        if (!s) return schema_error(path, mp + "/unit", "a time unit (ns, us, ms, s)", u);
        scale = *s;
      }
      value = *x * scale;
    }
  }
  if (!value && !samples.empty()) {
    value =
        std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  }
  if (!value) {
    return schema_error(path, pointer + "/measurements",
                        "a measurement named '" + objective + "' (or times/runtimes)");
  }
  return *value;
}

/// Result `r` (pass 2) as an entry of `space`, or nothing when its invalidity is
/// `constraints` (not part of the space).
[[nodiscard]] inline Result<std::optional<std::pair<Configuration, RecordedEntry>>> t4_entry(
    const boost::json::object& result, std::size_t r, const std::vector<std::string>& names,
    const Space& space, double unit, const std::string& path) {
  const std::string pointer = "/results/" + std::to_string(r);
  const auto& config = result.at("configuration").get_object();
  Configuration c(space.dimensions());
  for (std::size_t d = 0; d < names.size(); ++d) {
    c[d] = *space.parameter(d).find(*level(config.at(names[d])));
  }
  const auto* inv = result.if_contains("invalidity");
  const auto* inv_text = inv != nullptr ? inv->if_string() : nullptr;
  const auto status =
      inv_text != nullptr ? status_from_string(std::string_view(*inv_text)) : std::nullopt;
  if (!status) {
    return schema_error(path, pointer + "/invalidity",
                        "one of correct, constraints, compile, runtime, timeout, correctness", inv);
  }
  if (*status == Status::constraints) return std::nullopt;  // not part of the space
  RecordedEntry e;
  e.status = *status;
  if (*status != Status::correct) e.marker = std::string(*inv_text);
  if (auto ok = t4_times(result, pointer, unit, path, e); !ok) return ok.error();
  if (e.status == Status::correct) {
    auto value = t4_value(result, pointer, unit, path, e.samples);
    if (!value) return value.error();
    e.value = *value;
  }
  return std::optional<std::pair<Configuration, RecordedEntry>>(
      std::pair<Configuration, RecordedEntry>(std::move(c), std::move(e)));
}

}  // namespace detail

/// A Recording from a parsed T4 results file. T4 has no parameter list: the parameters are the
/// keys of the first result's `configuration`, in order; each one's values are those that
/// occur, sorted when they are all numbers. Results with invalidity `constraints` are not part
/// of the space (as configurations absent from a Kernel Tuner cache); the other invalidity
/// values are statuses. The objective is the measurement named by the result's first
/// `objectives` entry (default "time"), in its `unit` or `metadata.timeunit` (default
/// milliseconds), stored in seconds; without one, the mean of `times.runtimes`.
[[nodiscard]] inline Result<Recording> load_t4_results(const boost::json::value& root,
                                                       const std::string& path,
                                                       std::string name = {}) {
  using detail::schema_error;
  const auto* top = root.if_object();
  if (top == nullptr) return schema_error(path, "", "a JSON object (T4 results)", &root);
  const auto unit = detail::t4_time_unit(*top, path);
  if (!unit) return unit.error();
  const auto* results_value = top->if_contains("results");
  if (results_value == nullptr) return schema_error(path, "/results", "an array of results");
  const auto* results = results_value->if_array();
  if (results == nullptr) return schema_error(path, "/results", "an array", results_value);
  std::vector<std::string> names;
  auto parameters = detail::t4_parameters(*results, path, names);
  if (!parameters) return parameters.error();
  Recording recording(name.empty() ? detail::stem(path) : std::move(name), path,
                      std::move(*parameters));
  recording.objective = "time";
  if (const auto* meta = top->if_contains("metadata"); meta != nullptr && meta->is_object()) {
    if (const auto* d = meta->get_object().if_contains("device"); d != nullptr && d->is_string()) {
      recording.device = std::string(d->get_string());
    }
  }
  const Space& space = recording.space();
  for (std::size_t r = 0; r < results->size(); ++r) {
    auto entry = detail::t4_entry((*results)[r].get_object(), r, names, space, *unit, path);
    if (!entry) return entry.error();
    if (!*entry) continue;
    auto& [c, e] = **entry;
    if (!recording.add(c, std::move(e))) {
      return make_error(Errc::schema_error, path + ": /results/" + std::to_string(r) +
                                                ": configuration " + space.to_string(c) +
                                                " is recorded twice");
    }
  }
  (void)recording.baseline();
  return recording;
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_T4_RESULTS_HPP
