// CANN's profiling switches as a job of `aoe` honours them (docs/reports.md#msprof-files):
// PROFILING_MODE=true turns profiling on, PROFILING_OPTIONS (or `aoe --profiling_options`) is
// its JSON: where the files go (`output`), which of them are written (`training_trace`,
// `task_trace`, `hccl`, `aicpu`), the AI Core metrics of op_summary (`aic_metrics`) and the
// iteration's forward and backward points (`fp_point`, `bp_point`). Parsed strictly: an error
// names where the options came from and the field.
#ifndef AOE_REPORT_PROFILING_OPTIONS_HPP
#define AOE_REPORT_PROFILING_OPTIONS_HPP

#include "aoe/core/error.hpp"
#include "aoe/io/parse_json.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::report {

/// The AI Core metrics group of op_summary. msprof has more groups (MemoryL0, MemoryUB,
/// ResourceConflictRatio, L2Cache, ...): the simulator models none of their counters.
enum class AicMetrics : std::uint8_t {
  pipe_utilization,        ///< "PipeUtilization": each pipe's time and ratio
  arithmetic_utilization,  ///< "ArithmeticUtilization": Cube and Vector ratios
  memory,                  ///< "Memory": GM read and write bandwidth
};

inline constexpr std::array<std::string_view, 3> aic_metrics_names{
    "PipeUtilization", "ArithmeticUtilization", "Memory"};

/// msprof's other aic_metrics values: known, refused with a message that says so.
inline constexpr std::array<std::string_view, 5> unmodelled_aic_metrics{
    "MemoryL0", "MemoryUB", "ResourceConflictRatio", "L2Cache", "MemoryAccess"};

[[nodiscard]] constexpr std::string_view to_string(AicMetrics m) noexcept {
  return aic_metrics_names[static_cast<std::size_t>(m)];
}

/// What profiling writes. Without PROFILING_OPTIONS every switch is on (CANN's default when
/// only the mode is set); a switch the options leave out is off.
struct ProfilingOptions {
  std::filesystem::path output;  ///< empty: the job's work directory
  bool training_trace = true;    ///< step_trace_*.csv and .json (GDAT)
  bool task_trace = true;        ///< task_time_*.csv and op_summary's task time columns
  bool hccl = true;              ///< hccl_*.json (GDAT)
  bool aicpu = true;             ///< accepted; the simulator runs no AI CPU operator
  AicMetrics aic_metrics = AicMetrics::pipe_utilization;
  std::string fp_point;  ///< empty: found (the iteration's first forward operator)
  std::string bp_point;  ///< empty: found (the end of backward compute)
  /// Fields of CANN's options that OpenAOE reads and ignores (l2, runtime_api, ...).
  std::vector<std::string> ignored{};
};

namespace detail {

/// "on"/"off" (CANN's spelling; also true/false): the switch `name` of `o`.
inline Result<void> profiling_switch(const boost::json::object& o, std::string_view name,
                                     const std::string& source, bool& out) {
  const auto* v = o.if_contains(name);
  out = false;
  if (v == nullptr) return {};
  if (v->is_bool()) {
    out = v->as_bool();
    return {};
  }
  if (v->is_string() && (v->as_string() == "on" || v->as_string() == "off")) {
    out = v->as_string() == "on";
    return {};
  }
  return make_error(Errc::invalid_argument,
                    source + ": /" + std::string(name) + ": expected \"on\" or \"off\"");
}

inline Result<std::string> profiling_text(const boost::json::object& o, std::string_view name,
                                          const std::string& source) {
  const auto* v = o.if_contains(name);
  if (v == nullptr) return std::string();
  if (!v->is_string()) {
    return make_error(Errc::invalid_argument,
                      source + ": /" + std::string(name) + ": expected a string");
  }
  return std::string(v->as_string());
}

inline Result<AicMetrics> parse_aic_metrics(const std::string& text, const std::string& source) {
  if (text.empty()) return AicMetrics::pipe_utilization;
  for (std::size_t i = 0; i < aic_metrics_names.size(); ++i) {
    if (text == aic_metrics_names[i]) return static_cast<AicMetrics>(i);
  }
  std::string known;
  for (const auto n : aic_metrics_names) known += (known.empty() ? "" : ", ") + std::string(n);
  for (const auto n : unmodelled_aic_metrics) {
    if (text == n) {
      return make_error(Errc::invalid_argument,
                        source + ": /aic_metrics: '" + text +
                            "' is an msprof metric the simulator does not model; expected " +
                            known);
    }
  }
  return make_error(Errc::invalid_argument,
                    source + ": /aic_metrics: '" + text + "': expected one of " + known);
}

}  // namespace detail

/// Parses PROFILING_OPTIONS' JSON `text`; `source` names it in errors ("environment variable
/// PROFILING_OPTIONS", "--profiling_options"). Empty text: every switch on.
[[nodiscard]] inline Result<ProfilingOptions> parse_profiling_options(const std::string& text,
                                                                      const std::string& source) {
  ProfilingOptions p;
  if (text.empty()) return p;
  auto parsed = aoe::detail::parse_json(text, source);
  if (!parsed) return make_error(Errc::invalid_argument, parsed.error().message);
  if (!parsed->is_object()) {
    return make_error(Errc::invalid_argument, source + ": /: expected a JSON object");
  }
  const auto& o = parsed->as_object();
  for (const auto& [name, switch_] :
       {std::pair{"training_trace", &p.training_trace}, std::pair{"task_trace", &p.task_trace},
        std::pair{"hccl", &p.hccl}, std::pair{"aicpu", &p.aicpu}}) {
    if (auto ok = detail::profiling_switch(o, name, source, *switch_); !ok) return ok.error();
  }
  auto output = detail::profiling_text(o, "output", source);
  auto metrics = detail::profiling_text(o, "aic_metrics", source);
  auto fp = detail::profiling_text(o, "fp_point", source);
  auto bp = detail::profiling_text(o, "bp_point", source);
  for (const auto* r : {&output, &metrics, &fp, &bp}) {
    if (!*r) return r->error();
  }
  auto m = detail::parse_aic_metrics(*metrics, source);
  if (!m) return m.error();
  p.output = *output;
  p.aic_metrics = *m;
  p.fp_point = *fp;
  p.bp_point = *bp;
  for (const auto& field : o) {
    static constexpr std::array<std::string_view, 8> known{
        "output", "training_trace", "task_trace", "hccl",
        "aicpu",  "aic_metrics",    "fp_point",   "bp_point"};
    if (std::find(known.begin(), known.end(), field.key()) == known.end()) {
      p.ignored.emplace_back(field.key());
    }
  }
  return p;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_PROFILING_OPTIONS_HPP
