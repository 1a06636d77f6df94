// What a repository keeps: the best known configuration for a problem on a device.
#ifndef AOE_VOCAB_RECORD_HPP
#define AOE_VOCAB_RECORD_HPP

#include "aoe/space/value.hpp"
#include "aoe/vocab/timing.hpp"

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aoe {

/// Identifies a tuning problem: what is tuned (`problem`, a canonical text such as
/// "gemm/m=1024,n=1024,k=1024/fp32") on what (`device`, e.g. "host/x86_64" or
/// "Ascend910A/32 cores"). Configurations tuned for one key are reused only for that key.
struct TuningKey {
  std::string problem;
  std::string device;
  friend auto operator<=>(const TuningKey&, const TuningKey&) = default;
  friend bool operator==(const TuningKey&, const TuningKey&) = default;
};

/// How a record came to be.
struct Provenance {
  std::string policy;           ///< the search policy's name
  std::size_t evaluations = 0;  ///< configurations measured to find it
  std::string timestamp;        ///< ISO 8601, UTC
  /// Whether `Record::value` is a model's time or a device's, and whose. None: not said (a
  /// record of a bank written before banks said it, or of a writer that does not know). An OPAT
  /// job on a real device takes a record that is not `measured` as a hint, never as a hit
  /// (docs/aoe-facts.md#operator-knowledge-bank-layout-and-key).
  std::optional<Timing> timing{};
};

/// One configuration of a stored time-energy front, with its two objectives.
struct FrontMember {
  std::vector<NamedValue> configuration;
  double seconds = 0;  ///< one run's time
  double joules = 0;   ///< one run's energy
  friend bool operator==(const FrontMember&, const FrontMember&) = default;
};

/// The best configuration known for a key, stored by parameter name and value so that it
/// survives changes to the order or the ranges of a space.
struct Record {
  TuningKey key;
  std::vector<NamedValue> configuration;
  double value = 0;  ///< the measured objective (seconds for time)
  Provenance provenance;
  /// A pareto tuning's front: the non-dominated configurations it measured, by time, among
  /// which `configuration` is the one its rule picked (docs/energy.md). Empty for every other
  /// objective, and then nothing of it is written.
  std::vector<FrontMember> front{};
};

/// What `store` did with a record.
enum class StoreOutcome : std::uint8_t {
  added,    ///< the key was new
  updated,  ///< the record is better than the stored one and replaced it
  kept,     ///< the stored record is at least as good and was kept
};

}  // namespace aoe

#endif  // AOE_VOCAB_RECORD_HPP
