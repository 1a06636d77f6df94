// A job's profile before and after tuning, and its two machine-readable forms
// (docs/reports.md):
//  - ModelProfile: per operator execution its place on the stream, its duration (the job's
//    figure, so that the operators sum to the result file's model time) and, where the simulator
//    models it, its pipes as the timing model schedules them (measure/simulator/detail/timing.hpp);
//  - trace_json: the Chrome trace event format (Perfetto, chrome://tracing): one process per
//    phase (before / after tuning), a track for the operator stream and one per pipe of the AI
//    Core (MTE2, MTE1, Cube, Vector, FixPipe/MTE3), the pipes of each operator laid out per wave
//    inside the operator; GDAT's step (gdat_trace_json);
//  - op_summary_csv: msprof's op_summary columns where we have the figure, and a few of ours.
// The operators' times are the job's (ModelProfile::timing says whether simulated or measured:
// the trace's args.simulated and otherData.timing, op_summary's "Timing" column); the breakdown
// (pipes, launch, TransData, waves) is always the simulator's timing model. Include it in a
// tool, not in a library header: it pulls in the simulator, the jobs' reports and Boost.JSON.
#ifndef AOE_REPORT_PROFILE_HPP
#define AOE_REPORT_PROFILE_HPP

#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/opat/opat_report.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/measure/simulator/simulator_runner.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/op/bank_key.hpp"
#include "aoe/op/operator_desc.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/timing.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::report {

// ---- The profile ---------------------------------------------------------------------------

/// One operator execution on the simulated stream.
struct OpExecution {
  std::string name;
  std::string type;
  double start_us = 0;     ///< from the start of the phase
  double duration_us = 0;  ///< the job's figure (result file)
  /// The timing model's breakdown of the configuration in use, when the simulator models it.
  std::optional<sim::detail::Profile> profile{};
  std::string knowledge;  ///< "Schedule: m_l0=64, ...; Format: ..." (empty: the default)
  const OperatorDesc* desc = nullptr;  ///< shapes, types and formats, when known
};

/// The model on the stream, one phase (before or after tuning).
struct Phase {
  std::string name;  ///< "before tuning", "after tuning"
  std::vector<OpExecution> ops;
  [[nodiscard]] double total_us() const {
    double t = 0;
    for (const auto& o : ops) t += o.duration_us;
    return t;
  }
};

/// A job's profile: the job's times on the stream, with the simulator's breakdown.
struct ModelProfile {
  std::string model;
  std::string soc;
  std::vector<Phase> phases;           ///< before, after
  std::vector<FusedOperator> fused{};  ///< owns the descriptions `desc` points to
  /// Where the executions' times (`duration_us`, the result file's) came from. The breakdown
  /// (`profile`: pipes, launch, TransData, waves) is always the simulator's timing model.
  Timing timing{};
};

namespace detail {

inline std::string knowledge_text(
    const std::vector<std::pair<std::string, std::vector<NamedValue>>>& knowledge) {
  std::string s;
  for (const auto& [kind, values] : knowledge) {
    if (!s.empty()) s += "; ";
    s += kind + ":";
    for (std::size_t i = 0; i < values.size(); ++i) {
      s += (i == 0 ? " " : ", ") + values[i].name + "=" + values[i].value.to_string();
    }
  }
  return s;
}

/// The profile of `op` with the parameters of `knowledge` over its defaults; nullopt when the
/// simulator has no model of it or the configuration does not fit.
inline std::optional<sim::detail::Profile> simulate(
    const sim::Soc& soc, const OperatorDesc& op,
    const std::vector<std::pair<std::string, std::vector<NamedValue>>>* knowledge) {
  auto runner = Runner<device::Simulator>::create(
      soc, op,
      SimulatorOptions{
          .knowledge = {sim::Knowledge::schedule, sim::Knowledge::format, sim::Knowledge::impl}});
  if (!runner) return std::nullopt;
  Configuration c = runner->default_configuration();
  if (knowledge != nullptr) {
    auto values = runner->space().named_values(c);
    for (const auto& kind : *knowledge) {
      for (const auto& nv : kind.second) {
        for (auto& v : values) {
          if (v.name == nv.name) v.value = nv.value;
        }
      }
    }
    auto found = runner->space().find(values);
    if (!found) return std::nullopt;
    c = *found;
  }
  sim::detail::Profile p;
  const auto o = runner->profile(c, p);
  if (o.buffer != sim::detail::Buffer::none) return std::nullopt;
  return p;
}

}  // namespace detail

/// The OPAT job's profile: the report's operators in model order with their default and tuned
/// times, each with the simulator's breakdown of its default and chosen configurations.
[[nodiscard]] inline ModelProfile opat_profile(const Graph& graph, const OpatReport& report,
                                               const sim::Soc& soc) {
  ModelProfile m;
  m.model = report.tuning_name;
  m.soc = soc.name;
  m.timing = report.timing.value_or(sim::model_timing(soc.name));
  m.fused = fuse(graph);
  std::map<std::string, const OperatorDesc*> by_name;
  for (const auto& f : m.fused) by_name.emplace(f.op.name, &f.op);
  Phase before{"before tuning", {}};
  Phase after{"after tuning", {}};
  // Operators of one computation (same key text, members and knowledge) have one profile: a
  // model of 10^5 operators has a few hundred distinct ones.
  std::map<std::string, std::optional<sim::detail::Profile>, std::less<>> seen;
  using Knowledge = std::vector<std::pair<std::string, std::vector<NamedValue>>>;
  const auto profiled = [&](const OperatorDesc& d, const Knowledge* knowledge,
                            std::string_view text) {
    std::string key = operator_key_text(d, "");
    for (const auto& member : d.members) key += "|" + member;
    key += "|";
    key += text;
    auto it = seen.find(key);
    if (it == seen.end()) it = seen.emplace(key, detail::simulate(soc, d, knowledge)).first;
    return it->second;
  };
  double t0 = 0;
  double t1 = 0;
  for (const auto& op : report.operators) {
    if (op.failed()) continue;
    const auto it = by_name.find(op.op_name);
    const OperatorDesc* desc = it == by_name.end() ? nullptr : it->second;
    OpExecution b{op.op_name, op.op_type, t0, op.default_us, std::nullopt, "", desc};
    OpExecution a{op.op_name,   op.op_type,   t1,
                  op.result_us, std::nullopt, detail::knowledge_text(op.knowledge.kinds()),
                  desc};
    if (desc != nullptr) {
      b.profile = profiled(*desc, nullptr, "");
      a.profile = profiled(*desc, &op.knowledge.kinds(), a.knowledge);
    }
    t0 += b.duration_us;
    t1 += a.duration_us;
    before.ops.push_back(std::move(b));
    after.ops.push_back(std::move(a));
  }
  m.phases.push_back(std::move(before));
  m.phases.push_back(std::move(after));
  return m;
}

/// SGAT's profile: the subgraphs on the stream before and after (the rest of the model, outside
/// the tuned subgraphs, as one more execution), so that each phase sums to the result file's
/// model time.
[[nodiscard]] inline ModelProfile sgat_profile(const SgatReport& r, std::string_view soc) {
  ModelProfile m;
  m.model = r.tuning_name;
  m.soc = std::string(soc);
  m.timing = sim::model_timing(soc);
  Phase before{"before tuning", {}};
  Phase after{"after tuning", {}};
  double rest = r.baseline_ms;
  for (const auto& s : r.subgraphs) {
    if (s.failed()) continue;
    rest -= s.default_ms;
    before.ops.push_back(
        {s.name, "subgraph", before.total_us(), s.default_ms * 1e3, std::nullopt, "", nullptr});
    after.ops.push_back({s.name, "subgraph", after.total_us(), s.after_ms * 1e3, std::nullopt,
                         s.strategy, nullptr});
  }
  if (rest > 1e-12) {
    before.ops.push_back(
        {"rest of the model", "untuned", before.total_us(), rest * 1e3, std::nullopt, "", nullptr});
    after.ops.push_back(
        {"rest of the model", "untuned", after.total_us(), rest * 1e3, std::nullopt, "", nullptr});
  }
  m.phases.push_back(std::move(before));
  m.phases.push_back(std::move(after));
  return m;
}

// ---- Chrome trace --------------------------------------------------------------------------

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

/// `timing`: where the jobs' times (the operator, subgraph or iteration events) came from.
inline boost::json::object trace_document(boost::json::array events, std::string_view model,
                                          std::string_view soc, std::string_view job,
                                          const Timing& timing) {
  boost::json::object doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ns";
  boost::json::object other;
  other["generator"] = "OpenAOE";
  other["model"] = model;
  other["soc"] = soc;
  other["job"] = job;
  other["simulated"] = !timing.measured();
  other["timing"] = aoe::detail::timing_json(timing);
  other["note"] =
      timing.measured()
          ? "the operators' times were measured on the device (" + timing.source +
                "); launch, TransData and pipe events are the OpenAOE simulator's timing model "
                "(docs/simulator.md), scaled to them; each event's args.simulated says which"
          : std::string(
                "all times are the OpenAOE simulator's timing model (docs/simulator.md), "
                "not measured");
  doc["otherData"] = std::move(other);
  return doc;
}

/// An event of the timing model's breakdown or of a model's step: args.simulated.
inline boost::json::object simulated_event(boost::json::object e) {
  e["args"] = boost::json::object{{"simulated", true}};
  return e;
}

/// Waves drawn one by one; the rest of an operator's waves is one event per pipe.
inline constexpr std::int64_t drawn_waves = 8;

/// Which operators of `ops` get their launch, TransData and pipe events: all of them up to
/// `limit`, else the `limit` longest (ties: the earlier). Keeps the trace of a model of 10^5
/// operators in tens of megabytes instead of hundreds.
[[nodiscard]] inline std::vector<bool> detailed_operators(const std::vector<OpExecution>& ops,
                                                          std::size_t limit) {
  std::vector<bool> detailed(ops.size(), ops.size() <= limit);
  if (ops.size() <= limit) return detailed;
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto longer = [&ops](std::size_t a, std::size_t b) {
    return ops[a].duration_us != ops[b].duration_us ? ops[a].duration_us > ops[b].duration_us
                                                    : a < b;
  };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(limit), order.end(),
                   longer);
  for (std::size_t i = 0; i < limit; ++i) detailed[order[i]] = true;
  return detailed;
}

}  // namespace detail

/// A phase's operators whose pipes the trace draws (all of them in a phase of at most this many
/// operators, else the longest); every operator is on the stream track.
inline constexpr std::size_t trace_pipe_operators = 2000;

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
    const std::vector<bool> detailed = detail::detailed_operators(phase.ops, trace_pipe_operators);
    for (std::size_t i = 0; i < phase.ops.size(); ++i) {
      const OpExecution& op = phase.ops[i];
      auto e =
          detail::trace_event(op.name, "operator", pid, stream_tid, op.start_us, op.duration_us);
      boost::json::object args;
      args["type"] = op.type;
      args["simulated"] = !m.timing.measured();
      if (!op.knowledge.empty()) args["knowledge"] = op.knowledge;
      if (op.profile) {
        const auto& p = *op.profile;
        args["bound"] = sim::detail::bound_names[static_cast<std::size_t>(p.bound)];
        args["block_dim"] = p.blocks;
        args["waves"] = p.waves;
      }
      e["args"] = std::move(args);
      events.push_back(std::move(e));
      if (!detailed[i] || !op.profile || op.profile->seconds <= 0) continue;
      const auto& p = *op.profile;
      // The job's figure is a measurement of the same configuration (OPAT measures the kinds'
      // combined choice); on a noisy device it can differ from this profile's, so the schedule
      // is scaled to sit inside the operator.
      const double us = op.duration_us / p.seconds;
      const double stretch = p.block > 0 ? p.wave / p.block : 1.0;
      events.push_back(detail::simulated_event(
          detail::trace_event("launch", "overhead", pid, stream_tid, op.start_us, p.launch * us)));
      if (p.transdata > 0) {
        events.push_back(detail::simulated_event(detail::trace_event(
            "TransData", "overhead", pid, stream_tid,
            op.start_us + op.duration_us - p.transdata * us, p.transdata * us)));
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
  return detail::trace_document(std::move(events), m.model, m.soc, job, m.timing);
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
    events.push_back(detail::simulated_event(
        detail::trace_event("iteration", "iteration", pid, 1, 0, t.iteration * us)));
    events.push_back(detail::simulated_event(
        detail::trace_event("forward", "compute", pid, 2, 0, t.forward * us)));
    events.push_back(detail::simulated_event(
        detail::trace_event("backward", "compute", pid, 2, t.forward * us, t.backward * us)));
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
  return detail::trace_document(std::move(events), r.tuning_name, "", "GDAT", gdat_timing());
}

// ---- op_summary CSV ------------------------------------------------------------------------

namespace detail {

inline std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

inline std::string number(double v, int digits = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

/// msprof's "1,3,224,224;64,3,7,7"-style lists of the tensors' shapes, types or formats.
template <class F>
std::string tensors(const std::vector<TensorDesc>& ts, F&& field) {
  std::string s;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (i > 0) s += ";";
    s += field(ts[i]);
  }
  return s;
}

inline std::string shape_text(const TensorDesc& t) {
  std::string s;
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    s += (i == 0 ? "" : ",") + std::to_string(t.shape[i]);
  }
  return s;
}

}  // namespace detail

/// The op_summary columns, in order.
[[nodiscard]] inline const std::vector<std::string_view>& op_summary_columns() {
  static const std::vector<std::string_view> columns{"Device_id",
                                                     "Model Name",
                                                     "Task ID",
                                                     "Stream ID",
                                                     "Op Name",
                                                     "OP Type",
                                                     "Task Type",
                                                     "Task Start Time(us)",
                                                     "Task Duration(us)",
                                                     "Task Wait Time(us)",
                                                     "Block Dim",
                                                     "Input Shapes",
                                                     "Input Data Types",
                                                     "Input Formats",
                                                     "Output Shapes",
                                                     "Output Data Types",
                                                     "Output Formats",
                                                     "aicore_time(us)",
                                                     "aic_mac_time(us)",
                                                     "aic_mac_ratio",
                                                     "aic_mte1_time(us)",
                                                     "aic_mte1_ratio",
                                                     "aic_mte2_time(us)",
                                                     "aic_mte2_ratio",
                                                     "aic_fixpipe_time(us)",
                                                     "aic_fixpipe_ratio",
                                                     "aiv_vec_time(us)",
                                                     "aiv_vec_ratio",
                                                     "aiv_mte2_time(us)",
                                                     "aiv_mte2_ratio",
                                                     "aiv_mte3_time(us)",
                                                     "aiv_mte3_ratio",
                                                     "Phase",
                                                     "Waves",
                                                     "Bound",
                                                     "Knowledge",
                                                     "Timing"};
  return columns;
}

namespace detail {

/// `row` as a CSV line.
inline void csv_line(std::string& out, const std::vector<std::string>& row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    out += (i == 0 ? "" : ",") + csv_field(row[i]);
  }
  out += "\n";
}

/// msprof's data type names: upper case ("FLOAT16").
inline std::string dtype_text(const TensorDesc& t) {
  std::string s(to_string(t.dtype));
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

inline std::string format_text(const TensorDesc& t) { return std::string(to_string(t.format)); }

/// "Task Type": a cube kernel with vector work on a split SoC is MIX_AIC, a vector kernel there
/// AI_VECTOR_CORE, any other AI_CORE; empty when not modelled.
inline std::string task_type(const sim::detail::Profile* p, bool split_soc) {
  const bool cube_op = p != nullptr && p->family == sim::detail::Family::cube;
  const bool mix = cube_op && split_soc && p->pipes[sim::detail::vector].busy > 0;
  return p == nullptr ? "" : mix ? "MIX_AIC" : cube_op || !split_soc ? "AI_CORE" : "AI_VECTOR_CORE";
}

/// The six tensor columns: shapes, data types and formats of the inputs, then of the outputs.
inline void tensor_cells(std::vector<std::string>& row, const OperatorDesc* desc) {
  if (desc == nullptr) {
    for (int i = 0; i < 6; ++i) row.emplace_back();
    return;
  }
  for (const auto* side : {&desc->inputs, &desc->outputs}) {
    row.push_back(tensors(*side, shape_text));
    row.push_back(tensors(*side, dtype_text));
    row.push_back(tensors(*side, format_text));
  }
}

/// The fifteen pipe columns: the core's time, then per pipe its time and ratio (AI Cube pipes
/// for a cube kernel, AI Vector pipes for a vector kernel and a cube kernel's vector work).
inline void pipe_cells(std::vector<std::string>& row, const OpExecution& op) {
  using namespace sim::detail;  // Pipe names
  if (!op.profile) {
    for (int i = 0; i < 15; ++i) row.emplace_back();
    return;
  }
  const auto* p = &*op.profile;
  const bool cube_op = p->family == Family::cube;
  // Per core over the kernel: busy time per block times the waves, and its share of the
  // core's time (msprof's ratio: the pipe's cycles over the core's total cycles).
  const double scale = p->seconds > 0 ? op.duration_us / p->seconds : 0;
  const double core = static_cast<double>(p->waves) * p->wave;
  const auto time = [&](Pipe q) {
    return p->pipes[q].busy * static_cast<double>(p->waves) * scale;
  };
  const auto ratio = [&](Pipe q) {
    return core > 0 ? p->pipes[q].busy * static_cast<double>(p->waves) / core : 0.0;
  };
  row.push_back(number(core * scale));
  for (const Pipe q : {cube, mte1, mte2, mte3}) {
    if (cube_op) {
      row.push_back(number(time(q)));
      row.push_back(number(ratio(q)));
    } else {
      row.emplace_back();
      row.emplace_back();
    }
  }
  for (const Pipe q : {vector, mte2, mte3}) {
    const bool has = cube_op ? q == vector && p->pipes[q].busy > 0 : true;
    row.push_back(has ? number(time(q)) : "");
    row.push_back(has ? number(ratio(q)) : "");
  }
}

/// The op_summary row of task `task`: operator execution `op` of `phase` in `m`.
inline std::vector<std::string> op_summary_row(const ModelProfile& m, const Phase& phase,
                                               const OpExecution& op, std::size_t task,
                                               bool split_soc) {
  const auto* p = op.profile ? &*op.profile : nullptr;
  std::vector<std::string> row;
  row.reserve(op_summary_columns().size());
  row.push_back("0");
  row.push_back(m.model);
  row.push_back(std::to_string(task));
  row.push_back("0");
  row.push_back(op.name);
  row.push_back(op.type);
  row.push_back(task_type(p, split_soc));
  row.push_back(number(op.start_us));
  row.push_back(number(op.duration_us));
  row.push_back("0");
  row.push_back(p == nullptr ? "" : std::to_string(p->blocks));
  tensor_cells(row, op.desc);
  pipe_cells(row, op);
  row.push_back(phase.name);
  row.push_back(p == nullptr ? "" : std::to_string(p->waves));
  row.push_back(p == nullptr ? "" : sim::detail::bound_names[static_cast<std::size_t>(p->bound)]);
  row.push_back(op.knowledge);
  row.emplace_back(to_string(m.timing.kind));
  return row;
}

}  // namespace detail

/// The profile as op_summary CSV text (a header line, then one line per operator execution).
[[nodiscard]] inline std::string op_summary_csv(const ModelProfile& m, bool split_soc) {
  std::string out;
  const auto& columns = op_summary_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    out += (i == 0 ? "" : ",") + detail::csv_field(columns[i]);
  }
  out += "\n";
  std::size_t task = 0;
  for (const auto& phase : m.phases) {
    for (const auto& op : phase.ops) {
      detail::csv_line(out, detail::op_summary_row(m, phase, op, task++, split_soc));
    }
  }
  return out;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_PROFILE_HPP
