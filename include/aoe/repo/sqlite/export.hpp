// A tuning database's runs as a table (one row per trial, the parameters as columns) for CSV or
// JSON lines: what `aoe-db export` writes (docs/database.md#export).
#ifndef AOE_REPO_SQLITE_EXPORT_HPP
#define AOE_REPO_SQLITE_EXPORT_HPP

#include "aoe/core/error.hpp"
#include "aoe/export/trial_table.hpp"
#include "aoe/repo/sqlite/tuning_database.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aoe {

/// Which runs to export; an unset field matches every run.
struct RunFilter {
  std::optional<std::int64_t> run{};
  std::optional<std::string> problem{};
  std::optional<std::string> device{};
};

/// The trials of the runs that match `filter`, run by run. Leading columns: `run`, `problem`,
/// `device`, `space_fingerprint`, `seed`, `policy`, `timing` ("simulated", "measured"; empty:
/// not said) and `timing_source` (docs/database.md#simulated-or-measured).
[[nodiscard]] inline Result<TrialTable> export_runs(const TuningDatabase& db,
                                                    const RunFilter& filter = {}) {
  auto runs = db.runs();
  if (!runs) return runs.error();
  TrialTable table({"run", "problem", "device", "space_fingerprint", "seed", "policy", "timing",
                    "timing_source"});
  for (const auto& r : *runs) {
    if (filter.run && *filter.run != r.id) continue;
    if (filter.problem && *filter.problem != r.info.key.problem) continue;
    if (filter.device && *filter.device != r.info.key.device) continue;
    auto trials = db.trials(r.id);
    if (!trials) return trials.error();
    const auto& timing = r.info.timing;
    const std::string kind(timing ? to_string(timing->kind) : "");
    for (const auto& t : *trials) {
      table.add({Value(r.id), Value(r.info.key.problem), Value(r.info.key.device),
                 Value(r.info.space_fingerprint), Value(static_cast<std::int64_t>(r.info.seed)),
                 Value(r.info.policy), Value(kind), Value(timing ? timing->source : "")},
                t);
    }
  }
  return table;
}

}  // namespace aoe

#endif  // AOE_REPO_SQLITE_EXPORT_HPP
