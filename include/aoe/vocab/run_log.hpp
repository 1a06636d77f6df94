// What a repository that logs every trial exchanges with the tuner: the run's identity, its
// trials by parameter name and how it ended. The capabilities themselves (`trial_log`,
// `fingerprinted_repository`) are concepts of the tuner floor (aoe/tuner/concepts.hpp,
// docs/concepts.md#trial_log).
#ifndef AOE_VOCAB_RUN_LOG_HPP
#define AOE_VOCAB_RUN_LOG_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/record.hpp"

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
  /// Where the run's times come from (the measure policy's `timing()`); none: not said
  /// (metadata, not part of what identifies the run).
  std::optional<Timing> timing{};
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

}  // namespace aoe

#endif  // AOE_VOCAB_RUN_LOG_HPP
