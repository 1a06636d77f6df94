// One training iteration as msprof's step_trace and hccl files show it, from GDAT's iteration
// model (docs/reports.md#step_trace-and-hccl): the forward pass, backward compute, the
// all-reduce of each segment of the split in use and the iteration's end, with fp_point and
// bp_point looked up among the profile's gradients. Simulated, and labelled so.
#ifndef AOE_REPORT_MSPROF_TRAINING_HPP
#define AOE_REPORT_MSPROF_TRAINING_HPP

#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/report/msprof_files.hpp"
#include "aoe/report/profile.hpp"
#include "aoe/report/profiling_options.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace aoe::report {

/// The iteration's points in microseconds from its start (the forward pass's start). A point
/// that fp_point or bp_point names and the profile does not have is none: msprof then leaves
/// FP_BP, Iteration Refresh and the bounds empty, and so do we.
struct StepTrace {
  std::optional<double> fp_start_us;
  std::optional<double> bp_end_us;
  double iteration_end_us = 0;
  std::string fp_point;  ///< what was looked up ("" found automatically)
  std::string bp_point;
  struct Reduce {
    double start_us = 0;
    double duration_us = 0;
    double ready_us = 0;  ///< its last gradient is ready
    std::int64_t bytes = 0;
    std::size_t first = 0;  ///< gradients first..last
    std::size_t last = 0;
  };
  std::vector<Reduce> reduces;

  [[nodiscard]] std::optional<double> fp_bp_us() const {
    if (!fp_start_us || !bp_end_us) return std::nullopt;
    return *bp_end_us - *fp_start_us;
  }
  /// msprof's Iteration Refresh (Grad_refresh Bound): the iteration's end after BP End.
  [[nodiscard]] std::optional<double> refresh_us() const {
    if (!bp_end_us) return std::nullopt;
    return iteration_end_us - *bp_end_us;
  }
};

/// The step of the split in use. fp_point: empty, or the gradient ready last (the model's first
/// layer, whose forward operator starts the iteration), is the forward pass's start; any other
/// name is not found. bp_point: empty is the end of backward compute; a gradient's name is the
/// moment it is ready; any other name is not found.
[[nodiscard]] inline StepTrace step_trace(const GdatReport& r, const gdat::GradientProfile& g,
                                          const ProfilingOptions& o) {
  const auto& t = r.timeline;
  StepTrace s;
  s.fp_point = o.fp_point;
  s.bp_point = o.bp_point;
  s.iteration_end_us = t.iteration * 1e6;
  if (o.fp_point.empty() || (!g.gradients.empty() && g.gradients.back().name == o.fp_point)) {
    s.fp_start_us = 0.0;
  }
  if (o.bp_point.empty()) {
    s.bp_end_us = (t.forward + t.backward) * 1e6;
  } else {
    const auto ready = g.ready_seconds();
    for (std::size_t i = 0; i < g.gradients.size(); ++i) {
      if (g.gradients[i].name == o.bp_point) s.bp_end_us = (t.forward + ready[i]) * 1e6;
    }
  }
  for (const auto& seg : t.segments) {
    s.reduces.push_back({(t.forward + seg.start) * 1e6, (seg.end - seg.start) * 1e6,
                         (t.forward + seg.ready) * 1e6, seg.bytes, seg.first, seg.last});
  }
  return s;
}

namespace detail {

inline std::string optional_us(const std::optional<double>& v) {
  return v ? number(*v) : std::string("N/A");
}

}  // namespace detail

/// step_trace_*.csv: one line for the iteration, then Reduce Start / Reduce Duration(us) per
/// segment.
[[nodiscard]] inline std::string step_trace_csv(const StepTrace& s, const MsprofIds& ids) {
  std::vector<std::string> head{"Device_id",          "Iteration ID",
                                "FP Start",           "BP End",
                                "Iteration End",      "Iteration Time(us)",
                                "FP to BP Time(us)",  "Iteration Refresh(us)",
                                "Data Aug Bound(us)", "Model ID"};
  std::vector<std::string> row{std::to_string(ids.device),
                               std::to_string(ids.iteration),
                               detail::optional_us(s.fp_start_us),
                               detail::optional_us(s.bp_end_us),
                               detail::number(s.iteration_end_us),
                               detail::number(s.iteration_end_us),
                               detail::optional_us(s.fp_bp_us()),
                               detail::optional_us(s.refresh_us()),
                               "N/A",
                               std::to_string(ids.model)};
  for (const auto& r : s.reduces) {
    head.insert(head.end(), {"Reduce Start", "Reduce Duration(us)"});
    row.insert(row.end(), {detail::number(r.start_us), detail::number(r.duration_us)});
  }
  head.emplace_back("Timing");
  row.emplace_back("simulated");
  std::string out;
  detail::csv_line(out, head);
  detail::csv_line(out, row);
  return out;
}

namespace detail {

/// A value of step_trace.json's args: nanoseconds, or "N/A".
inline boost::json::value ns_value(const std::optional<double>& us) {
  if (!us) return "N/A";
  return *us * 1e3;
}

inline boost::json::object step_args(const StepTrace& s, const MsprofIds& ids) {
  boost::json::object a;
  a["Iteration ID"] = ids.iteration;
  a["FP Start"] = ns_value(s.fp_start_us);
  a["BP End"] = ns_value(s.bp_end_us);
  a["Iteration End"] = s.iteration_end_us * 1e3;
  a["Iteration Time(ns)"] = s.iteration_end_us * 1e3;
  a["FP_BP Time"] = ns_value(s.fp_bp_us());
  a["Iteration Refresh"] = ns_value(s.refresh_us());
  a["Data_aug Bound"] = "N/A";
  a["fp_point"] = s.fp_point.empty() ? "(found: the forward pass's start)" : s.fp_point;
  a["bp_point"] = s.bp_point.empty() ? "(found: the end of backward compute)" : s.bp_point;
  a["simulated"] = true;
  return a;
}

}  // namespace detail

/// step_trace_*.json: the iteration as Chrome trace events (ts, dur in us; args in ns as
/// msprof's): the iteration, FP_BP Time and Grad_refresh Bound on one track, each segment's
/// all-reduce (Reduce_k) on another.
[[nodiscard]] inline boost::json::object step_trace_json(const StepTrace& s, const GdatReport& r,
                                                         const MsprofIds& ids) {
  boost::json::array events;
  const std::string model = "Model ID:" + std::to_string(ids.model);
  detail::name_track(events, 1, 0, "process_name", "Step Trace (simulated)");
  detail::name_track(events, 1, 1, "thread_name", model + " iteration");
  detail::name_track(events, 1, 2, "thread_name", model + " Reduce");
  const auto it = std::to_string(ids.iteration);
  auto iteration =
      detail::trace_event("Iteration " + it, "step_trace", 1, 1, 0, s.iteration_end_us);
  iteration["args"] = detail::step_args(s, ids);
  events.push_back(std::move(iteration));
  if (s.fp_start_us && s.bp_end_us) {
    events.push_back(detail::simulated_event(detail::trace_event(
        "FP_BP Time " + it, "step_trace", 1, 1, *s.fp_start_us, *s.fp_bp_us())));
  }
  if (s.bp_end_us) {
    events.push_back(detail::simulated_event(detail::trace_event(
        "Grad_refresh Bound " + it, "step_trace", 1, 1, *s.bp_end_us, *s.refresh_us())));
  }
  for (std::size_t k = 0; k < s.reduces.size(); ++k) {
    const auto& red = s.reduces[k];
    auto e = detail::trace_event("Reduce_" + std::to_string(k), "step_trace", 1, 2, red.start_us,
                                 red.duration_us);
    e["args"] = boost::json::object{{"Reduce Start", red.start_us * 1e3},
                                    {"Reduce End", (red.start_us + red.duration_us) * 1e3},
                                    {"simulated", true}};
    events.push_back(std::move(e));
  }
  return detail::trace_document(std::move(events), r.tuning_name, "", "GDAT", gdat_timing());
}

/// hccl_*.json: each all-reduce segment of the split in use on the simulated cluster, as
/// Chrome trace events on plane 0 (args: size(Byte), duration estimated(us), bandwidth(GB/s),
/// the gradients it carries, when its last gradient was ready and how long it waited for the
/// link).
[[nodiscard]] inline boost::json::object hccl_json(const StepTrace& s, const GdatReport& r,
                                                   const MsprofIds& ids) {
  boost::json::array events;
  detail::name_track(events, 1, 0, "process_name", "HCCL (simulated)");
  detail::name_track(events, 1, 1, "thread_name", "Plane 0");
  for (std::size_t k = 0; k < s.reduces.size(); ++k) {
    const auto& red = s.reduces[k];
    auto e = detail::trace_event("hcom_allReduce_" + std::to_string(k), "hccl", 1, 1, red.start_us,
                                 red.duration_us);
    boost::json::object a;
    a["Communication OP"] = "hcom_allReduce_" + std::to_string(k);
    a["Plane ID"] = 0;
    a["model id"] = ids.model;
    a["iteration id"] = ids.iteration;
    a["task type"] = "Reduce";
    a["size(Byte)"] = red.bytes;
    a["duration estimated(us)"] = red.duration_us;
    a["bandwidth(GB/s)"] =
        red.duration_us > 0 ? static_cast<double>(red.bytes) / (red.duration_us * 1e3) : 0.0;
    a["gradients"] = std::to_string(red.first) + ".." + std::to_string(red.last);
    a["ready(us)"] = red.ready_us;
    a["wait(us)"] = red.start_us - red.ready_us;
    a["simulated"] = true;
    e["args"] = std::move(a);
    events.push_back(std::move(e));
  }
  auto doc = detail::trace_document(std::move(events), r.tuning_name, "", "GDAT", gdat_timing());
  auto& other = doc["otherData"].as_object();
  other["devices"] = r.cluster.devices;
  other["topology"] = gdat::to_string(r.cluster.topology);
  return doc;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_MSPROF_TRAINING_HPP
