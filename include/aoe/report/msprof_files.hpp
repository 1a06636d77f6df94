// The files msprof writes, as a job of `aoe` writes them when profiling is on
// (docs/reports.md#msprof-files): op_summary, op_statistic, fusion_op, task_time, step_trace,
// hccl and prof_rule, named `<kind>_{device_id}_{model_id}_{iter_id}` with msprof's column names
// and units. Every figure in them is the simulator's timing model (or, for the operators' task
// times, the job's, as the Timing column says): no file claims a hardware counter.
#ifndef AOE_REPORT_MSPROF_FILES_HPP
#define AOE_REPORT_MSPROF_FILES_HPP

#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/result_file.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/jobs/sgat/subgraph_split.hpp"
#include "aoe/report/profile.hpp"
#include "aoe/report/profiling_options.hpp"
#include "aoe/vocab/timing.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe::report {

/// The `{device_id}_{model_id}_{iter_id}` of the file names: the device (ASCEND_DEVICE_ID), the
/// one model a job profiles and its one iteration.
struct MsprofIds {
  int device = 0;
  int model = 1;
  int iteration = 1;
};

/// "op_summary_0_1_1.csv" for kind "op_summary" and extension ".csv".
[[nodiscard]] inline std::string msprof_file_name(std::string_view kind, const MsprofIds& ids,
                                                  std::string_view extension) {
  return std::string(kind) + "_" + std::to_string(ids.device) + "_" + std::to_string(ids.model) +
         "_" + std::to_string(ids.iteration) + std::string(extension);
}

namespace detail {

inline void csv_header(std::string& out, const std::vector<std::string>& columns) {
  csv_line(out, columns);
}

/// The phase a profile's msprof files describe: the model as it runs after the job.
inline const Phase& profiled_phase(const ModelProfile& m) { return m.phases.back(); }

/// The kernel's time on a core (aicore_time), as op_summary scales it; 0 when not modelled.
inline double aicore_us(const OpExecution& op) {
  if (!op.profile || op.profile->seconds <= 0) return 0;
  const auto& p = *op.profile;
  return static_cast<double>(p.waves) * p.wave * op.duration_us / p.seconds;
}

/// A pipe's share of the kernel's time on a core.
inline double pipe_ratio(const sim::detail::Profile& p, sim::detail::Pipe q) {
  const double core = static_cast<double>(p.waves) * p.wave;
  return core > 0 ? p.pipes[q].busy * static_cast<double>(p.waves) / core : 0.0;
}

inline std::int64_t tensor_bytes(const std::vector<TensorDesc>& ts) {
  std::int64_t b = 0;
  for (const auto& t : ts) b += t.bytes();
  return b;
}

/// GB/s of `bytes` moved in `us` microseconds ("" when there is no time).
inline std::string bandwidth(std::int64_t bytes, double us) {
  return us > 0 ? number(static_cast<double>(bytes) / (us * 1e3), 3) : "";
}

/// The columns aic_metrics `m` adds to op_summary.
inline std::vector<std::string> metric_columns(AicMetrics m) {
  const auto& all = op_summary_columns();
  switch (m) {
    case AicMetrics::arithmetic_utilization:
      return {"aicore_time(us)", "aic_cube_ratio", "aiv_vec_ratio"};
    case AicMetrics::memory:
      return {"aicore_time(us)", "main_mem_read_bw(GB/s)", "main_mem_write_bw(GB/s)"};
    case AicMetrics::pipe_utilization: break;
  }
  return {all.begin() + 17, all.begin() + 32};  // aicore_time(us) .. aiv_mte3_ratio
}

/// The cells of `metric_columns(m)` for `op`.
inline void metric_cells(std::vector<std::string>& row, const OpExecution& op, AicMetrics m) {
  if (m == AicMetrics::pipe_utilization) {
    pipe_cells(row, op);
    return;
  }
  const double core = aicore_us(op);
  if (!op.profile || op.desc == nullptr) {
    row.insert(row.end(), 3, "");
    return;
  }
  row.push_back(number(core));
  if (m == AicMetrics::arithmetic_utilization) {
    row.push_back(number(pipe_ratio(*op.profile, sim::detail::cube)));
    row.push_back(number(pipe_ratio(*op.profile, sim::detail::vector)));
    return;
  }
  row.push_back(bandwidth(tensor_bytes(op.desc->inputs), core));
  row.push_back(bandwidth(tensor_bytes(op.desc->outputs), core));
}

}  // namespace detail

/// op_summary's columns under `o`: the task time columns with task_trace, the aic_metrics
/// group's columns, and the Timing label.
[[nodiscard]] inline std::vector<std::string> msprof_op_summary_columns(const ProfilingOptions& o) {
  std::vector<std::string> c{"Device_id", "Model Name", "Task ID",  "Stream ID",
                             "Op Name",   "OP Type",    "Task Type"};
  if (o.task_trace) {
    c.insert(c.end(), {"Task Start Time(us)", "Task Duration(us)", "Task Wait Time(us)"});
  }
  c.emplace_back("Block Dim");
  const auto& all = op_summary_columns();
  c.insert(c.end(), all.begin() + 11, all.begin() + 17);  // the tensors' shapes, types, formats
  for (auto& m : detail::metric_columns(o.aic_metrics)) c.push_back(std::move(m));
  c.emplace_back("Timing");
  return c;
}

/// op_summary_*.csv: one row per operator execution of the model as it runs after the job.
[[nodiscard]] inline std::string msprof_op_summary_csv(const ModelProfile& m,
                                                       const ProfilingOptions& o, bool split_soc,
                                                       const MsprofIds& ids) {
  std::string out;
  detail::csv_header(out, msprof_op_summary_columns(o));
  std::size_t task = 0;
  for (const auto& op : detail::profiled_phase(m).ops) {
    const auto* p = op.profile ? &*op.profile : nullptr;
    std::vector<std::string> row{
        std::to_string(ids.device),     m.model, std::to_string(task++), "0", op.name, op.type,
        detail::task_type(p, split_soc)};
    if (o.task_trace) {
      row.insert(row.end(), {detail::number(op.start_us), detail::number(op.duration_us), "0"});
    }
    row.push_back(p == nullptr ? "" : std::to_string(p->blocks));
    detail::tensor_cells(row, op.desc);
    detail::metric_cells(row, op, o.aic_metrics);
    row.emplace_back(to_string(m.timing.kind));
    detail::csv_line(out, row);
  }
  return out;
}

/// One row of op_statistic: an operator type on a core type.
struct OpStatistic {
  std::string op_type;
  std::string core_type;
  std::size_t count = 0;
  double total_us = 0;
  double min_us = 0;
  double max_us = 0;
};

/// The statistics of the profiled phase per operator type and core type, the longest total
/// first (ties: by type), as msprof sorts op_statistic.
[[nodiscard]] inline std::vector<OpStatistic> op_statistics(const ModelProfile& m, bool split_soc) {
  std::map<std::pair<std::string, std::string>, OpStatistic> by_type;
  for (const auto& op : detail::profiled_phase(m).ops) {
    const auto* p = op.profile ? &*op.profile : nullptr;
    std::string core = detail::task_type(p, split_soc);
    if (core.empty()) core = "AI_CORE";
    auto [it, added] = by_type.try_emplace({op.type, core});
    OpStatistic& s = it->second;
    if (added) s = {op.type, core, 0, 0, op.duration_us, op.duration_us};
    ++s.count;
    s.total_us += op.duration_us;
    s.min_us = std::min(s.min_us, op.duration_us);
    s.max_us = std::max(s.max_us, op.duration_us);
  }
  std::vector<OpStatistic> out;
  for (auto& [key, s] : by_type) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(), [](const OpStatistic& a, const OpStatistic& b) {
    return a.total_us > b.total_us;
  });
  return out;
}

/// op_statistic_*.csv: count, total, min, avg, max (us) and ratio (%) per operator type.
[[nodiscard]] inline std::string op_statistic_csv(const ModelProfile& m, bool split_soc,
                                                  const MsprofIds& ids) {
  std::string out;
  detail::csv_header(out,
                     {"Device_id", "Model Name", "OP Type", "Core Type", "Count", "Total Time(us)",
                      "Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)", "Timing"});
  const double total = detail::profiled_phase(m).total_us();
  for (const auto& s : op_statistics(m, split_soc)) {
    detail::csv_line(
        out, {std::to_string(ids.device), m.model, s.op_type, s.core_type, std::to_string(s.count),
              detail::number(s.total_us), detail::number(s.min_us),
              detail::number(s.total_us / static_cast<double>(s.count)), detail::number(s.max_us),
              detail::number(total > 0 ? 100.0 * s.total_us / total : 0.0),
              std::string(to_string(m.timing.kind))});
  }
  return out;
}

/// task_time_*.csv: each task of the profiled phase on stream 0, start, stop and time in us.
[[nodiscard]] inline std::string task_time_csv(const ModelProfile& m, bool split_soc,
                                               const MsprofIds& ids) {
  std::string out;
  detail::csv_header(out, {"Device_id", "kernel_name", "kernel_type", "stream_id", "task_id",
                           "task_time(us)", "task_start(us)", "task_stop(us)", "Timing"});
  std::size_t task = 0;
  for (const auto& op : detail::profiled_phase(m).ops) {
    const auto* p = op.profile ? &*op.profile : nullptr;
    std::string type = detail::task_type(p, split_soc);
    detail::csv_line(
        out, {std::to_string(ids.device), op.name, type.empty() ? "AI_CORE" : type, "0",
              std::to_string(task++), detail::number(op.duration_us), detail::number(op.start_us),
              detail::number(op.start_us + op.duration_us), std::string(to_string(m.timing.kind))});
  }
  return out;
}

// ---- fusion_op -----------------------------------------------------------------------------

namespace detail {

/// The bytes of one fused operator as fusion_op counts them: inputs from other operators or
/// the model's data, weights (a member's input after its first that no node produces), outputs.
struct FusionMemory {
  std::int64_t input = 0;
  std::int64_t weight = 0;
  std::int64_t output = 0;
};

inline FusionMemory fusion_memory(const Graph& g, const FusedOperator& f,
                                  const std::set<std::string, std::less<>>& produced) {
  FusionMemory m;
  std::set<std::string, std::less<>> inside;
  for (const auto n : f.nodes) {
    for (const auto& t : g.nodes[n].outputs) inside.insert(t.name);
  }
  for (const auto n : f.nodes) {
    const auto& node = g.nodes[n];
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const auto& t = node.inputs[i];
      if (inside.contains(t.name)) continue;
      (i > 0 && !produced.contains(t.name) ? m.weight : m.input) += t.desc.bytes();
    }
  }
  m.output = tensor_bytes(f.op.outputs);
  return m;
}

inline std::string kilobytes(std::int64_t bytes) {
  return number(static_cast<double>(bytes) / 1024.0, 3);
}

}  // namespace detail

/// fusion_op_*.csv: each fused operator of `graph` (aoe::fuse, the fusion OPAT tunes), its
/// original operators and memory in KB; `strategies` (SGAT: by subgraph name) adds the strategy
/// of the subgraph that holds it, SGAT's fusion decisions.
[[nodiscard]] inline std::string fusion_op_csv(
    const Graph& graph, const MsprofIds& ids,
    const std::map<std::string, std::string>* strategies = nullptr) {
  std::string out;
  detail::csv_header(out, {"Device_id", "Model Name", "Model ID", "Fusion Op", "Original Ops",
                           "Memory Input(KB)", "Memory Output(KB)", "Memory Weight(KB)",
                           "Memory Workspace(KB)", "Memory Total(KB)", "SGAT Strategy"});
  std::set<std::string, std::less<>> produced;
  for (const auto& n : graph.nodes) {
    for (const auto& t : n.outputs) produced.insert(t.name);
  }
  const auto subgraphs = strategies != nullptr ? split_subgraphs(graph) : std::vector<Subgraph>{};
  for (const auto& f : fuse(graph)) {
    if (f.nodes.size() < 2) continue;
    std::string originals;
    for (const auto n : f.nodes) originals += (originals.empty() ? "" : ";") + graph.nodes[n].name;
    std::string strategy;
    for (const auto& s : subgraphs) {
      if (f.nodes.front() < s.begin || f.nodes.front() >= s.end) continue;
      const auto it = strategies->find(s.name);
      if (it != strategies->end()) strategy = s.name + ": " + it->second;
    }
    const auto mem = detail::fusion_memory(graph, f, produced);
    detail::csv_line(out, {std::to_string(ids.device), graph.name, std::to_string(ids.model),
                           f.op.name, originals, detail::kilobytes(mem.input),
                           detail::kilobytes(mem.output), detail::kilobytes(mem.weight), "0.000",
                           detail::kilobytes(mem.input + mem.output + mem.weight), strategy});
  }
  return out;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_MSPROF_FILES_HPP
