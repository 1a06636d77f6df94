// Transfer across devices (docs/transfer.md): what other devices know of the problem tuned, how
// a run uses it, and what it took. The planning itself is aoe/tuner/transfer.hpp.
#ifndef AOE_VOCAB_TRANSFER_HPP
#define AOE_VOCAB_TRANSFER_HPP

#include "aoe/space/configuration.hpp"
#include "aoe/space/value.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace aoe {

/// One configuration measured on a source device: its parameter values by name (so that it
/// outlives the space it was measured on) and its value there, lower is better.
struct TransferPoint {
  std::vector<NamedValue> configuration;
  double value = 0;
  friend bool operator==(const TransferPoint&, const TransferPoint&) = default;
};

/// What one other device knows of the problem: its winner alone (a repository record) or many
/// measured configurations (a recording, the trials a tuning database logged). Order does not
/// matter; a point whose value is not a positive finite number is ignored.
struct TransferSource {
  std::string device;
  std::vector<TransferPoint> points;
};

/// Transfer's options, in `TunerOptions::transfer`. Aggregate:
/// `aoe::TransferOptions{.per_source = 3}`.
struct TransferOptions {
  /// On by default: a run uses other devices' knowledge wherever there is some (the
  /// repository's records of the same problem on other devices, or `sources`).
  bool enabled = true;
  std::size_t per_source = 2;  ///< the best configurations taken from each source
  std::size_t max_seeds = 12;  ///< configurations measured first because of transfer, at most
  /// A source whose weight is known and under this fraction of the most trusted source's is
  /// left out (a device unlike the others). 0, the default: every source is used, in order of
  /// weight (docs/transfer.md says what leaving sources out did on recorded spaces).
  double min_weight = 0;
  /// Sources given by the caller (recordings of the same kernel on other devices), beside the
  /// repository's. A source named as the key's device is left out: it is the target itself.
  std::vector<TransferSource> sources{};
  /// Configurations of the space tuned to measure first, before the planned ones: seeds
  /// planned elsewhere (`aoe-bench --transfer` plans them once per input). Invalid ones and
  /// repeats are dropped; `max_seeds` does not bound them.
  std::vector<Configuration> seeds{};
};

/// How far one source was trusted.
struct TransferWeight {
  std::string device;
  /// The mean, over the other sources that measured its best configurations, of the fraction of
  /// their optimum the best of those reached: 1 when no other source measured any (`predicted`
  /// 0), so that one source, or winners only, are taken as they are.
  double weight = 1;
  std::size_t predicted = 0;  ///< other sources its weight was measured on
  std::size_t seeds = 0;      ///< of the run's seeds, the ones from this source
  bool used = true;           ///< false: left out (TransferOptions::min_weight)
};

/// What a run took from other devices (`TuningResult::transfer`).
struct TransferReport {
  std::vector<TransferWeight> sources;  ///< by weight, the most trusted first
  std::size_t seeds = 0;                ///< configurations proposed first because of transfer
  /// The policy took the seeds as its own first points (its `warm_start`); otherwise the tuner
  /// measured them before the policy's first proposal.
  bool by_policy = false;
};

}  // namespace aoe

#endif  // AOE_VOCAB_TRANSFER_HPP
