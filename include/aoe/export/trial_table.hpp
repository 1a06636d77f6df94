// aoe::TrialTable: trials as a table, one row per trial with the parameters as columns, written
// as CSV (RFC 4180) or JSON lines for pandas, R or a spreadsheet (docs/database.md#export).
// Written to a stream here; to a file, atomically, by aoe::write_table_file
// (export/trial_table_file.hpp, which brings <filesystem>: not part of <aoe.hpp>).
#ifndef AOE_EXPORT_TRIAL_TABLE_HPP
#define AOE_EXPORT_TRIAL_TABLE_HPP

#include "aoe/core/error.hpp"
#include "aoe/export/json_text.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/run_log.hpp"
#include "aoe/vocab/status.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// The formats a table is written in.
enum class TableFormat : std::uint8_t { csv, json_lines };

/// Rows of trials. Columns: the leading columns given at construction (for example run id and
/// key), `evaluation`, one column per parameter (the union over all rows, in first-seen order;
/// empty where a row's space has no such parameter), then `status`, `value` (empty/null for a
/// failure), `cost`, `started`, `finished`, `samples` (space-separated in CSV, an array in JSON)
/// and `message`.
class TrialTable {
 public:
  explicit TrialTable(std::vector<std::string> leading_columns = {})
      : leading_(std::move(leading_columns)) {}

  /// Adds a row; `leading` has one value per leading column.
  void add(std::vector<Value> leading, const LoggedTrial& trial) {
    for (const auto& nv : trial.configuration) {
      if (std::find(parameters_.begin(), parameters_.end(), nv.name) == parameters_.end()) {
        parameters_.push_back(nv.name);
      }
    }
    leading.resize(leading_.size());
    rows_.push_back({std::move(leading), trial});
  }

  [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }
  [[nodiscard]] const std::vector<std::string>& parameters() const noexcept { return parameters_; }

  /// The header line and one line per row.
  void write_csv(std::ostream& out) const {
    std::string line;
    const auto field = [&](std::string_view s) {
      if (!line.empty()) line += ',';
      detail::append_csv_field(line, s);
    };
    for (const auto& c : leading_) field(c);
    field("evaluation");
    for (const auto& p : parameters_) field(p);
    for (const char* c : {"status", "value", "cost", "started", "finished", "samples", "message"}) {
      field(c);
    }
    out << line << '\n';
    for (const auto& row : rows_) {
      line.clear();
      // The first field may be empty: write it through append_csv_field without a comma.
      bool first = true;
      const auto cell = [&](std::string_view s) {
        if (!first) line += ',';
        first = false;
        detail::append_csv_field(line, s);
      };
      for (const auto& v : row.leading) cell(v.to_string());
      const auto& t = row.trial;
      cell(std::to_string(t.evaluation));
      for (const auto& p : parameters_) cell(value_of(t, p));
      cell(to_string(t.measurement.status));
      cell(std::isfinite(t.measurement.value) ? Value(t.measurement.value).to_string() : "");
      cell(Value(t.measurement.cost).to_string());
      cell(Value(t.started).to_string());
      cell(Value(t.finished).to_string());
      std::string samples;
      for (const double x : t.measurement.samples) {
        if (!samples.empty()) samples += ' ';
        samples += Value(x).to_string();
      }
      cell(samples);
      cell(t.measurement.message);
      out << line << '\n';
    }
  }

  /// One JSON object per line; parameters keep their type (number or text).
  void write_json_lines(std::ostream& out) const {
    std::string line;
    for (const auto& row : rows_) {
      line = "{";
      const auto key = [&](std::string_view k) {
        if (line.size() > 1) line += ',';
        detail::append_json_string(line, k);
        line += ':';
      };
      for (std::size_t i = 0; i < leading_.size(); ++i) {
        key(leading_[i]);
        detail::append_json_value(line, row.leading[i]);
      }
      const auto& t = row.trial;
      key("evaluation");
      line += std::to_string(t.evaluation);
      for (const auto& nv : t.configuration) {
        key(nv.name);
        detail::append_json_value(line, nv.value);
      }
      key("status");
      detail::append_json_string(line, to_string(t.measurement.status));
      key("value");
      detail::append_json_real(line, t.measurement.value);
      key("cost");
      detail::append_json_real(line, t.measurement.cost);
      key("started");
      detail::append_json_real(line, t.started);
      key("finished");
      detail::append_json_real(line, t.finished);
      key("samples");
      line += detail::json_array(t.measurement.samples);
      key("message");
      detail::append_json_string(line, t.measurement.message);
      line += '}';
      out << line << '\n';
    }
  }

  void write(std::ostream& out, TableFormat format) const {
    if (format == TableFormat::csv) {
      write_csv(out);
    } else {
      write_json_lines(out);
    }
  }

 private:
  struct Row {
    std::vector<Value> leading;
    LoggedTrial trial;
  };

  static std::string value_of(const LoggedTrial& t, const std::string& name) {
    for (const auto& nv : t.configuration) {
      if (nv.name == name) return nv.value.to_string();
    }
    return {};
  }

  std::vector<std::string> leading_;
  std::vector<std::string> parameters_;
  std::vector<Row> rows_;
};

}  // namespace aoe

#endif  // AOE_EXPORT_TRIAL_TABLE_HPP
