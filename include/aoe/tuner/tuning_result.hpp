// What a tuning run returns.
#ifndef AOE_TUNER_TUNING_RESULT_HPP
#define AOE_TUNER_TUNING_RESULT_HPP

#include "aoe/core/error.hpp"
#include "aoe/vocab/record.hpp"
#include "aoe/vocab/status.hpp"
#include "aoe/vocab/transfer.hpp"
#include "aoe/vocab/trial.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aoe {

/// Why a run ended.
enum class StopReason : std::uint8_t {
  condition,       ///< the stop condition held
  exhausted,       ///< the search policy had nothing left to propose
  stalled,         ///< the search policy kept proposing configurations already evaluated
  repository_hit,  ///< the repository had a record for the key; nothing was measured
  observer,        ///< an observer asked to stop
};

[[nodiscard]] constexpr std::string_view to_string(StopReason r) noexcept {
  switch (r) {
    case StopReason::condition: return "condition";
    case StopReason::exhausted: return "exhausted";
    case StopReason::stalled: return "stalled";
    case StopReason::repository_hit: return "repository_hit";
    case StopReason::observer: return "observer";
  }
  return "condition";
}

/// The best configuration, the full history and where the time went.
/// One candidate re-measured before the best was declared (TunerOptions::confirm).
struct Confirmed {
  std::size_t index = 0;       ///< its trial in TuningResult::history
  std::vector<double> values;  ///< its scores: the search's measurement first, then each round's
  double median = 0;           ///< of `values`: what decided
};

struct TuningResult {
  /// The best configuration: measured in this run, or taken from the repository on a hit.
  std::optional<Configuration> best_configuration;
  /// The objective's score of the best (TunerOptions::objective, aoe::objective_score): its
  /// seconds for time, joules for energy, joules x seconds for edp; for pareto, the point in
  /// use by its rule's measure.
  double best_value = std::numeric_limits<double>::infinity();
  /// Index of the best trial in `history`; npos on a repository hit or when nothing was valid.
  std::size_t best_index = TuningState::npos;
  std::vector<Trial> history;  ///< every evaluation, in order
  /// Pareto: indices in `history` of the non-dominated trials (time, energy), by time; the best
  /// is the one the objective's rule picks. Empty for the other objectives.
  std::vector<std::size_t> front;
  std::array<std::size_t, status_count> status_counts{};
  double search_seconds = 0;   ///< wall time spent in the search policy
  double measure_seconds = 0;  ///< measurement cost (device time where the runner reports it)
  double total_seconds = 0;    ///< wall time of the whole run
  StopReason reason = StopReason::condition;
  std::optional<Record> repository_record;    ///< the record found on a hit
  std::optional<StoreOutcome> stored;         ///< what the repository did with the winner
  std::optional<ErrorInfo> repository_error;  ///< a failed lookup or store
  std::string policy;                         ///< the search policy's name
  /// Trials taken from the repository's log of an interrupted run instead of being measured.
  std::size_t replayed = 0;
  /// What the run took from other devices (TunerOptions::transfer, docs/transfer.md).
  TransferReport transfer{};
  /// The candidates re-measured before the best was declared, best first by the search's
  /// measurement (TunerOptions::confirm); empty when off. `best_index` is the one with the
  /// lowest median, and `best_value` that median.
  std::vector<Confirmed> confirmation;

  [[nodiscard]] bool found() const noexcept { return best_configuration.has_value(); }
  [[nodiscard]] std::size_t count(Status s) const noexcept {
    return status_counts[static_cast<std::size_t>(s)];
  }
  /// The best trial of this run, or nullptr.
  [[nodiscard]] const Trial* best_trial() const noexcept {
    return best_index == TuningState::npos ? nullptr : &history[best_index];
  }
};

}  // namespace aoe

#endif  // AOE_TUNER_TUNING_RESULT_HPP
