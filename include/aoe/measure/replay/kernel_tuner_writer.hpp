// Writes a Recording as a Kernel Tuner cache file (kernel_tuner/util.py: store_cache), the
// inverse of load_kernel_tuner_cache: what a recorded run leaves for replay and for Kernel
// Tuner itself.
#ifndef AOE_MEASURE_REPLAY_KERNEL_TUNER_WRITER_HPP
#define AOE_MEASURE_REPLAY_KERNEL_TUNER_WRITER_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/measure/replay/recording.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/status.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace aoe::replay {

/// Kernel Tuner's marker for a failed configuration: CompilationFailedConfig for `compile`,
/// InvalidConfig for `constraints`, RuntimeFailedConfig for everything else (Kernel Tuner has
/// no marker of its own for a timeout or a wrong answer; the entry's "aoe_status" field keeps
/// ours). A recorded marker is written back unchanged.
[[nodiscard]] inline std::string kernel_tuner_marker(const RecordedEntry& e) {
  if (!e.marker.empty()) return e.marker;
  switch (e.status) {
    case Status::compile: return "CompilationFailedConfig";
    case Status::constraints: return "InvalidConfig";
    default: return "RuntimeFailedConfig";
  }
}

namespace detail {

[[nodiscard]] inline boost::json::value json_level(const Value& v) {
  if (v.is_integer()) return v.as_integer();
  if (v.is_real()) return v.as_real();
  return boost::json::string(v.as_text());
}

}  // namespace detail

/// The cache as a JSON object: `device_name`, `kernel_name`, `objective` ("time"),
/// `tune_params_keys`, `tune_params` (every level of every parameter) and `cache`, one entry
/// per recorded configuration keyed by its comma-joined values, with the parameters, `time`
/// (milliseconds, or the failure marker), `times`, `compile_time`, `verification_time`,
/// `benchmark_time` (milliseconds) and `aoe_status`; where entries carry energy, `energy`
/// (joules per run) and `power` (watts) in them and `energy_kind` at the top.
[[nodiscard]] inline boost::json::object kernel_tuner_cache_json(const Recording& recording) {
  const Space& space = recording.space();
  boost::json::object root;
  root["device_name"] = recording.device;
  root["kernel_name"] = recording.kernel;
  root["objective"] = recording.objective.empty() ? "time" : recording.objective;
  const bool is_time = recording.objective.empty() || recording.objective == "time";
  const double scale = is_time ? 1e3 : 1.0;
  boost::json::array keys;
  boost::json::object params;
  for (std::size_t d = 0; d < space.dimensions(); ++d) {
    const auto& p = space.parameter(d);
    keys.emplace_back(p.name());
    boost::json::array levels;
    for (const auto& level : p.levels()) levels.push_back(detail::json_level(level));
    params[p.name()] = std::move(levels);
  }
  root["tune_params_keys"] = std::move(keys);
  root["tune_params"] = std::move(params);
  boost::json::object cache;
  for (std::size_t i = 0; i < recording.configurations(); ++i) {
    const auto& c = recording.recorded()[i];
    const auto& e = recording.entries()[i];
    std::string key;
    boost::json::object entry;
    for (std::size_t d = 0; d < space.dimensions(); ++d) {
      const Value& v = space.value(c, d);
      if (d > 0) key += ',';
      key += v.to_string();
      entry[space.parameter(d).name()] = detail::json_level(v);
    }
    if (e.status == Status::correct && std::isfinite(e.value)) {
      entry["time"] = e.value * scale;
    } else {
      entry["time"] = kernel_tuner_marker(e);
    }
    boost::json::array times;
    for (const double t : e.samples) times.emplace_back(t * 1e3);
    entry["times"] = std::move(times);
    entry["compile_time"] = e.compile_seconds * 1e3;
    entry["verification_time"] = e.verification_seconds * 1e3;
    if (e.benchmark_seconds) entry["benchmark_time"] = *e.benchmark_seconds * 1e3;
    entry["aoe_status"] = std::string(to_string(e.status));
    if (e.energy) {
      entry["energy"] = e.energy->joules;
      entry["power"] = e.energy->watts;
      root["energy_kind"] = std::string(to_string(e.energy->kind));
    }
    cache[key] = std::move(entry);
  }
  root["cache"] = std::move(cache);
  return root;
}

/// Writes the cache to `path` atomically (aoe::write_file_atomically: a reader never sees half
/// a file). `io_error` names the file.
[[nodiscard]] inline Result<void> write_kernel_tuner_cache(const Recording& recording,
                                                           const std::filesystem::path& path) {
  return write_file_atomically(path,
                               boost::json::serialize(kernel_tuner_cache_json(recording)) + "\n");
}

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_KERNEL_TUNER_WRITER_HPP
