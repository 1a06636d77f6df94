// Writing a job's msprof files into profiling's `output` directory
// (docs/reports.md#msprof-files): every text is made first, then each file is written
// atomically (a reader sees no file, the old one or the whole new one).
#ifndef AOE_REPORT_PROFILING_FILES_HPP
#define AOE_REPORT_PROFILING_FILES_HPP

#include "aoe/core/error.hpp"
#include "aoe/graph/fusion.hpp"
#include "aoe/graph/graph.hpp"
#include "aoe/io/atomic_file.hpp"
#include "aoe/jobs/gdat/gdat_report.hpp"
#include "aoe/jobs/gdat/gradient_profile.hpp"
#include "aoe/jobs/opat/opat_report.hpp"
#include "aoe/jobs/sgat/sgat_report.hpp"
#include "aoe/measure/simulator/soc.hpp"
#include "aoe/report/msprof_files.hpp"
#include "aoe/report/msprof_training.hpp"
#include "aoe/report/prof_rule.hpp"
#include "aoe/report/profile.hpp"
#include "aoe/report/profiling_options.hpp"

#include <boost/json/serialize.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace aoe::report {

/// Where and how a job's msprof files are written.
struct ProfilingRun {
  ProfilingOptions options;
  std::filesystem::path output;  ///< the directory (options.output, else the work directory)
  MsprofIds ids{};
  std::string model_argument;  ///< the model as the command line gave it, for prof_rule's commands
};

/// Files by name, and their texts.
using ProfilingTexts = std::vector<std::pair<std::string, std::string>>;

/// Checks, before a job runs, that `dir` can take the files: it is made if missing and a
/// temporary file is created in it and removed. The error names the directory.
[[nodiscard]] inline Result<void> check_profiling_output(const std::filesystem::path& dir) {
  if (const auto ec = aoe::make_directories(dir); ec) {
    return make_error(Errc::io_error, "cannot create the profiling output directory " +
                                          dir.string() + ": " + ec.message());
  }
  return check_atomic_write(dir / "prof_rule_0.json");
}

/// Writes `texts` into `dir`, one atomic file each, and gives their paths.
[[nodiscard]] inline Result<std::vector<std::filesystem::path>> write_profiling_texts(
    const std::filesystem::path& dir, const ProfilingTexts& texts) {
  if (const auto ec = aoe::make_directories(dir); ec) {
    return make_error(Errc::io_error, "cannot create the profiling output directory " +
                                          dir.string() + ": " + ec.message());
  }
  std::vector<std::filesystem::path> files;
  for (const auto& [name, text] : texts) {
    files.push_back(dir / name);
    if (auto ok = write_file_atomically(files.back(), text, false); !ok) return ok.error();
  }
  return files;
}

namespace detail {

inline std::string json_text(const boost::json::object& o) {
  return boost::json::serialize(o) + "\n";
}

/// The files every job with operators writes: op_summary, op_statistic, task_time (task_trace).
inline void operator_texts(ProfilingTexts& out, const ModelProfile& m, const ProfilingRun& run,
                           bool split_soc) {
  const auto& ids = run.ids;
  out.emplace_back(msprof_file_name("op_summary", ids, ".csv"),
                   msprof_op_summary_csv(m, run.options, split_soc, ids));
  out.emplace_back(msprof_file_name("op_statistic", ids, ".csv"),
                   op_statistic_csv(m, split_soc, ids));
  if (run.options.task_trace) {
    out.emplace_back(msprof_file_name("task_time", ids, ".csv"), task_time_csv(m, split_soc, ids));
  }
}

/// The fused operators of `graph` at their default policies, as the simulator times them: the
/// operators SGAT's subgraphs are made of (SGAT tunes subgraphs, not operators).
inline ModelProfile default_operator_profile(const Graph& graph, const sim::Soc& soc,
                                             const std::string& model) {
  ModelProfile m;
  m.model = model;
  m.soc = soc.name;
  m.timing = sim::model_timing(soc.name);
  m.fused = fuse(graph);
  Phase phase{"untuned operators", {}};
  double t = 0;
  for (const auto& f : m.fused) {
    auto p = simulate(soc, f.op, nullptr);
    if (!p) continue;
    const double us = p->seconds * 1e6;
    phase.ops.push_back({f.op.name, f.op.type, t, us, p, "", &f.op});
    t += us;
  }
  m.phases.push_back(std::move(phase));
  return m;
}

}  // namespace detail

/// OPAT's msprof files: op_summary, op_statistic, task_time, fusion_op and prof_rule of the
/// model as it runs after the job.
[[nodiscard]] inline Result<std::vector<std::filesystem::path>> write_opat_profiling(
    const Graph& graph, const OpatReport& r, const sim::Soc& soc, const ProfilingRun& run) {
  const ModelProfile m = opat_profile(graph, r, soc);
  ProfilingTexts texts;
  detail::operator_texts(texts, m, run, soc.split);
  texts.emplace_back(msprof_file_name("fusion_op", run.ids, ".csv"), fusion_op_csv(graph, run.ids));
  texts.emplace_back("prof_rule_0.json",
                     detail::json_text(prof_rule_json(operator_rules(m, run.model_argument),
                                                      m.model, "OPAT", m.timing)));
  return write_profiling_texts(run.output, texts);
}

/// SGAT's msprof files: the model's operators at their default policies (op_summary,
/// op_statistic, task_time, prof_rule) and fusion_op with each subgraph's strategy.
[[nodiscard]] inline Result<std::vector<std::filesystem::path>> write_sgat_profiling(
    const Graph& graph, const SgatReport& r, const sim::Soc& soc, const ProfilingRun& run) {
  const ModelProfile m = detail::default_operator_profile(graph, soc, r.tuning_name);
  std::map<std::string, std::string> strategies;
  for (const auto& s : r.subgraphs) {
    if (!s.failed()) strategies.emplace(s.name, s.strategy);
  }
  ProfilingTexts texts;
  detail::operator_texts(texts, m, run, soc.split);
  texts.emplace_back(msprof_file_name("fusion_op", run.ids, ".csv"),
                     fusion_op_csv(graph, run.ids, &strategies));
  texts.emplace_back("prof_rule_0.json",
                     detail::json_text(prof_rule_json(operator_rules(m, run.model_argument),
                                                      m.model, "SGAT", m.timing)));
  return write_profiling_texts(run.output, texts);
}

/// GDAT's msprof files: step_trace (training_trace), hccl (hccl) and prof_rule of one
/// iteration under the split in use.
[[nodiscard]] inline Result<std::vector<std::filesystem::path>> write_gdat_profiling(
    const GdatReport& r, const gdat::GradientProfile& g, const ProfilingRun& run) {
  const StepTrace s = step_trace(r, g, run.options);
  ProfilingTexts texts;
  if (run.options.training_trace) {
    texts.emplace_back(msprof_file_name("step_trace", run.ids, ".csv"), step_trace_csv(s, run.ids));
    texts.emplace_back(msprof_file_name("step_trace", run.ids, ".json"),
                       detail::json_text(step_trace_json(s, r, run.ids)));
  }
  if (run.options.hccl) {
    texts.emplace_back(msprof_file_name("hccl", run.ids, ".json"),
                       detail::json_text(hccl_json(s, r, run.ids)));
  }
  texts.emplace_back("prof_rule_0.json",
                     detail::json_text(prof_rule_json(gradient_rules(r, s, run.model_argument),
                                                      r.tuning_name, "GDAT", gdat_timing())));
  return write_profiling_texts(run.output, texts);
}

}  // namespace aoe::report

#endif  // AOE_REPORT_PROFILING_FILES_HPP
