// What a repository that keeps every trial offers the tuner: the optional capabilities behind
// resuming an interrupted run and keying records by the space they were tuned on
// (docs/concepts.md#trial_log). A repository that has none of them is used as before.
#ifndef AOE_REPO_TRIAL_LOG_HPP
#define AOE_REPO_TRIAL_LOG_HPP

#include "aoe/core/error.hpp"
#include "aoe/measure/measurement.hpp"
#include "aoe/repo/record.hpp"
#include "aoe/space/value.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// What identifies a run. A run is resumed when an unfinished run with the same key, space
/// fingerprint, seed and policy is found.
struct RunInfo {
  TuningKey key;
  std::string space_fingerprint;        ///< aoe::space_fingerprint(space)
  std::uint64_t seed = 0;               ///< TunerOptions::seed
  std::string policy;                   ///< the search policy's name
  std::size_t batch_size = 1;           ///< TunerOptions::batch_size (metadata)
  std::vector<std::string> parameters;  ///< the space's parameter names, in order (metadata)
};

/// A trial as a repository keeps it: the configuration by parameter name and value.
struct LoggedTrial {
  std::vector<NamedValue> configuration;
  Measurement measurement;
  std::size_t evaluation = 0;  ///< 1-based position in the run
  double started = 0;          ///< on the tuner's clock (seconds since the run started)
  double finished = 0;
};

/// How a run ended, for the run's metadata.
struct RunSummary {
  std::string reason;  ///< to_string(StopReason)
  std::size_t evaluations = 0;
  std::optional<double> best_value;
  double total_seconds = 0;
};

/// A repository that logs the trials of each run and can hand back those of an interrupted run.
/// `begin_run` opens a run: when an unfinished run matches `RunInfo` it is resumed and its
/// trials are returned (the tuner replays them into the search policy without measuring them),
/// otherwise a new run is started and the list is empty. `log_trials` appends trials to the open
/// run (durably: a run killed afterwards still has them); `end_run` marks it finished.
template <class R>
concept trial_log = requires(R& r, const RunInfo& info, std::span<const LoggedTrial> trials,
                             const RunSummary& summary) {
  { r.begin_run(info) } -> std::same_as<Result<std::vector<LoggedTrial>>>;
  { r.log_trials(trials) } -> std::same_as<Result<void>>;
  { r.end_run(summary) } -> std::same_as<Result<void>>;
};

/// A repository whose records are keyed by key and space fingerprint: a record tuned on another
/// space is a miss. The tuner uses these members instead of `lookup(key)`/`store(record)`.
template <class R>
concept fingerprinted_repository = requires(R& r, const R& cr, const TuningKey& key,
                                            std::string_view fingerprint, const Record& record) {
  { cr.lookup(key, fingerprint) } -> std::same_as<Result<std::optional<Record>>>;
  { r.store(record, fingerprint) } -> std::same_as<Result<StoreOutcome>>;
};

}  // namespace aoe

#endif  // AOE_REPO_TRIAL_LOG_HPP
