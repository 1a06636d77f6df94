// A job's simulated profile in the Chrome trace event format (opens in Perfetto and
// chrome://tracing): one process per phase (before / after tuning), a track for the operator
// stream and one per pipe of the AI Core (MTE2, MTE1, Cube, Vector, FixPipe/MTE3), the pipes of
// each operator laid out per wave as the timing model schedules them, inside the operator.
// Times in microseconds; every figure is simulated. docs/reports.md.
#ifndef AOE_REPORT_TRACE_HPP
#define AOE_REPORT_TRACE_HPP

#include "aoe/jobs/gdat_report.hpp"
#include "aoe/report/model_profile.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace aoe::report {

namespace detail {

inline boost::json::object trace_event(std::string_view name, std::string_view cat, int pid,
                                       int tid, double ts, double dur) {
  boost::json::object e;
  e["name"] = name;
  e["cat"] = cat;
  e["ph"] = "X";
  e["ts"] = ts;
  e["dur"] = std::max(0.0, dur);
  e["pid"] = pid;
  e["tid"] = tid;
  return e;
}

/// Process and thread names (metadata events; with ts and dur 0 so every event has them).
inline void name_track(boost::json::array& events, int pid, int tid, std::string_view what,
                       std::string_view name) {
  boost::json::object e;
  e["name"] = what;
  e["ph"] = "M";
  e["ts"] = 0.0;
  e["dur"] = 0.0;
  e["pid"] = pid;
  e["tid"] = tid;
  boost::json::object args;
  args["name"] = name;
  e["args"] = std::move(args);
  events.push_back(std::move(e));
}

inline boost::json::object trace_document(boost::json::array events, std::string_view model,
                                          std::string_view soc, std::string_view job) {
  boost::json::object doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ns";
  boost::json::object other;
  other["generator"] = "OpenAOE";
  other["model"] = model;
  other["soc"] = soc;
  other["job"] = job;
  other["simulated"] = true;
  other["note"] =
      "all times are the OpenAOE simulator's timing model (docs/simulator.md), not measured";
  doc["otherData"] = std::move(other);
  return doc;
}

/// Waves drawn one by one; the rest of an operator's waves is one event per pipe.
inline constexpr std::int64_t drawn_waves = 8;

}  // namespace detail

/// Track ids of a phase's process: the stream, then one per pipe.
inline constexpr int stream_tid = 1;
[[nodiscard]] constexpr int pipe_tid(int pipe) noexcept { return 2 + pipe; }

/// The profile as a Chrome trace (`{"traceEvents": [...], ...}`).
[[nodiscard]] inline boost::json::object trace_json(const ModelProfile& m, std::string_view job) {
  using sim::detail::pipe_count;
  boost::json::array events;
  for (std::size_t ph = 0; ph < m.phases.size(); ++ph) {
    const Phase& phase = m.phases[ph];
    const int pid = static_cast<int>(ph) + 1;
    detail::name_track(events, pid, 0, "process_name", phase.name + " (simulated)");
    detail::name_track(events, pid, stream_tid, "thread_name", "stream 0: operators");
    bool any_profile = false;
    for (const auto& op : phase.ops) any_profile = any_profile || op.profile.has_value();
    if (any_profile) {
      for (int p = 0; p < pipe_count; ++p) {
        detail::name_track(events, pid, pipe_tid(p), "thread_name",
                           std::string("AI Core pipe ") + sim::detail::pipe_names[p]);
      }
    }
    for (const auto& op : phase.ops) {
      auto e =
          detail::trace_event(op.name, "operator", pid, stream_tid, op.start_us, op.duration_us);
      boost::json::object args;
      args["type"] = op.type;
      args["simulated"] = true;
      if (!op.knowledge.empty()) args["knowledge"] = op.knowledge;
      if (op.profile) {
        const auto& p = *op.profile;
        args["bound"] = sim::detail::bound_names[static_cast<std::size_t>(p.bound)];
        args["block_dim"] = p.blocks;
        args["waves"] = p.waves;
      }
      e["args"] = std::move(args);
      events.push_back(std::move(e));
      if (!op.profile || op.profile->seconds <= 0) continue;
      const auto& p = *op.profile;
      // The job's figure may differ slightly from this profile's (OPAT multiplies the kinds'
      // gains); the schedule is scaled to sit inside the operator.
      const double us = op.duration_us / p.seconds;
      const double stretch = p.block > 0 ? p.wave / p.block : 1.0;
      events.push_back(
          detail::trace_event("launch", "overhead", pid, stream_tid, op.start_us, p.launch * us));
      if (p.transdata > 0) {
        events.push_back(detail::trace_event("TransData", "overhead", pid, stream_tid,
                                             op.start_us + op.duration_us - p.transdata * us,
                                             p.transdata * us));
      }
      const std::int64_t drawn = std::min(p.waves, detail::drawn_waves);
      for (std::int64_t w = 0; w < drawn; ++w) {
        const bool last = w == drawn - 1;
        const std::int64_t covered = last ? p.waves - w : 1;
        const double wave0 = op.start_us + (p.launch + static_cast<double>(w) * p.wave) * us;
        const double wave1 =
            op.start_us + (p.launch + static_cast<double>(w + covered - 1) * p.wave) * us;
        for (int q = 0; q < pipe_count; ++q) {
          const auto& s = p.pipes[static_cast<std::size_t>(q)];
          if (s.busy <= 0) continue;
          const double ts = wave0 + s.start * stretch * us;
          const double end = wave1 + s.end * stretch * us;
          auto pe = detail::trace_event(sim::detail::pipe_names[q], "pipe", pid, pipe_tid(q), ts,
                                        end - ts);
          boost::json::object pa;
          pa["operator"] = op.name;
          pa["waves"] = covered;
          pa["busy_us_per_block"] = s.busy * us;
          pa["utilisation"] = s.end > s.start ? s.busy / ((s.end - s.start) * stretch) : 0.0;
          pa["simulated"] = true;
          pe["args"] = std::move(pa);
          events.push_back(std::move(pe));
        }
      }
    }
  }
  return detail::trace_document(std::move(events), m.model, m.soc, job);
}

/// GDAT's step under the default and the tuned split: forward, backward compute and the
/// all-reduce of each segment, and the iteration on the first track.
[[nodiscard]] inline boost::json::object gdat_trace_json(const GdatReport& r) {
  boost::json::array events;
  const struct {
    const char* name;
    const gdat::IterationTimeline* t;
  } phases[] = {{"default split", &r.baseline_timeline}, {"tuned split", &r.timeline}};
  for (int ph = 0; ph < 2; ++ph) {
    const auto& t = *phases[ph].t;
    const int pid = ph + 1;
    detail::name_track(events, pid, 0, "process_name",
                       std::string(phases[ph].name) + " (simulated)");
    detail::name_track(events, pid, 1, "thread_name", "iteration");
    detail::name_track(events, pid, 2, "thread_name", "compute (forward, backward)");
    detail::name_track(events, pid, 3, "thread_name", "all-reduce (HCCL)");
    const double us = 1e6;
    events.push_back(detail::trace_event("iteration", "iteration", pid, 1, 0, t.iteration * us));
    events.push_back(detail::trace_event("forward", "compute", pid, 2, 0, t.forward * us));
    events.push_back(
        detail::trace_event("backward", "compute", pid, 2, t.forward * us, t.backward * us));
    for (std::size_t i = 0; i < t.segments.size(); ++i) {
      const auto& s = t.segments[i];
      auto e = detail::trace_event("all-reduce segment " + std::to_string(i), "allreduce", pid, 3,
                                   (t.forward + s.start) * us, (s.end - s.start) * us);
      boost::json::object a;
      a["gradients"] = std::to_string(s.first) + ".." + std::to_string(s.last);
      a["bytes"] = s.bytes;
      a["ready_us"] = (t.forward + s.ready) * us;
      a["simulated"] = true;
      e["args"] = std::move(a);
      events.push_back(std::move(e));
    }
  }
  return detail::trace_document(std::move(events), r.tuning_name, "", "GDAT");
}

}  // namespace aoe::report

#endif  // AOE_REPORT_TRACE_HPP
