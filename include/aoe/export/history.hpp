// A tuning run's history as a table: one row per trial with the parameters as columns, for CSV
// or JSON lines (docs/database.md#export).
#ifndef AOE_EXPORT_HISTORY_HPP
#define AOE_EXPORT_HISTORY_HPP

#include "aoe/export/trial_table.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/tuning_result.hpp"
#include "aoe/vocab/run_log.hpp"

#include <ostream>
#include <string>

namespace aoe {

/// The trials of `result` (tuned on `space`) as a table, in evaluation order.
[[nodiscard]] inline TrialTable history_table(const Space& space, const TuningResult& result) {
  TrialTable table;
  for (const auto& t : result.history) {
    table.add({}, LoggedTrial{space.named_values(t.configuration), t.measurement, t.evaluation,
                              t.started, t.finished});
  }
  return table;
}

/// Writes `result`'s history as CSV (header line, then one line per trial).
inline void write_history_csv(std::ostream& out, const Space& space, const TuningResult& result) {
  history_table(space, result).write_csv(out);
}

/// Writes `result`'s history as JSON lines (one object per trial).
inline void write_history_json_lines(std::ostream& out, const Space& space,
                                     const TuningResult& result) {
  history_table(space, result).write_json_lines(out);
}

}  // namespace aoe

#endif  // AOE_EXPORT_HISTORY_HPP
