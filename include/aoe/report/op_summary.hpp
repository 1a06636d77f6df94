// A job's simulated profile as an msprof-style op_summary CSV: one row per operator execution
// (before and after tuning), with msprof's column names where we have the figure and a few of
// our own at the end (Phase, Waves, Bound, Knowledge). Every time and ratio is the simulator's
// timing model; the columns are described in docs/reports.md.
#ifndef AOE_REPORT_OP_SUMMARY_HPP
#define AOE_REPORT_OP_SUMMARY_HPP

#include "aoe/report/model_profile.hpp"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace aoe::report {

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
                                                     "Knowledge"};
  return columns;
}

/// The profile as op_summary CSV text (a header line, then one line per operator execution).
[[nodiscard]] inline std::string op_summary_csv(const ModelProfile& m, bool split_soc) {
  using namespace sim::detail;  // Pipe names
  std::string out;
  const auto& columns = op_summary_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    out += (i == 0 ? "" : ",") + detail::csv_field(columns[i]);
  }
  out += "\n";
  std::size_t task = 0;
  for (const auto& phase : m.phases) {
    for (const auto& op : phase.ops) {
      std::vector<std::string> row;
      row.reserve(columns.size());
      row.push_back("0");
      row.push_back(m.model);
      row.push_back(std::to_string(task++));
      row.push_back("0");
      row.push_back(op.name);
      row.push_back(op.type);
      const auto* p = op.profile ? &*op.profile : nullptr;
      const bool cube_op = p != nullptr && p->family == Family::cube;
      const bool mix = cube_op && split_soc && p->pipes[vector].busy > 0;
      row.push_back(p == nullptr            ? ""
                    : mix                   ? "MIX_AIC"
                    : cube_op || !split_soc ? "AI_CORE"
                                            : "AI_VECTOR_CORE");
      row.push_back(detail::number(op.start_us));
      row.push_back(detail::number(op.duration_us));
      row.push_back("0");
      row.push_back(p == nullptr ? "" : std::to_string(p->blocks));
      const auto shapes = [](const TensorDesc& t) { return detail::shape_text(t); };
      const auto types = [](const TensorDesc& t) {
        std::string s(to_string(t.dtype));
        for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return s;
      };
      const auto formats = [](const TensorDesc& t) { return std::string(to_string(t.format)); };
      if (op.desc != nullptr) {
        row.push_back(detail::tensors(op.desc->inputs, shapes));
        row.push_back(detail::tensors(op.desc->inputs, types));
        row.push_back(detail::tensors(op.desc->inputs, formats));
        row.push_back(detail::tensors(op.desc->outputs, shapes));
        row.push_back(detail::tensors(op.desc->outputs, types));
        row.push_back(detail::tensors(op.desc->outputs, formats));
      } else {
        for (int i = 0; i < 6; ++i) row.emplace_back();
      }
      if (p != nullptr) {
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
        row.push_back(detail::number(core * scale));
        for (const Pipe q : {cube, mte1, mte2, mte3}) {
          if (cube_op) {
            row.push_back(detail::number(time(q)));
            row.push_back(detail::number(ratio(q)));
          } else {
            row.emplace_back();
            row.emplace_back();
          }
        }
        for (const Pipe q : {vector, mte2, mte3}) {
          const bool has = cube_op ? q == vector && p->pipes[q].busy > 0 : true;
          row.push_back(has ? detail::number(time(q)) : "");
          row.push_back(has ? detail::number(ratio(q)) : "");
        }
      } else {
        for (int i = 0; i < 15; ++i) row.emplace_back();
      }
      row.push_back(phase.name);
      row.push_back(p == nullptr ? "" : std::to_string(p->waves));
      row.push_back(p == nullptr ? "" : bound_names[static_cast<std::size_t>(p->bound)]);
      row.push_back(op.knowledge);
      for (std::size_t i = 0; i < row.size(); ++i) {
        out += (i == 0 ? "" : ",") + detail::csv_field(row[i]);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace aoe::report

#endif  // AOE_REPORT_OP_SUMMARY_HPP
