// What online tuning does and how far it goes: the mode (from AOE_MODE), the budget per key,
// how promising candidates are confirmed and how far-slower ones are abandoned.
#ifndef AOE_ONLINE_ONLINE_OPTIONS_HPP
#define AOE_ONLINE_ONLINE_OPTIONS_HPP

#include "aoe/config/environment.hpp"
#include "aoe/space/value.hpp"
#include "aoe/vocab/transfer.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace aoe {

/// What an `aoe::Online` does with each call.
enum class OnlineMode : std::uint8_t {
  off,   ///< no tuning: the best known configuration (repository) or the default, no measuring
  tune,  ///< calls of a key still being tuned run the search policy's next candidate
};

[[nodiscard]] constexpr std::string_view to_string(OnlineMode m) noexcept {
  return m == OnlineMode::tune ? "tune" : "off";
}

/// The mode AOE's environment asks for: AOE_MODE=2 (operator tuning) tunes; unset, or a mode
/// of another job (1 subgraph, 4 gradient), is off.
[[nodiscard]] inline OnlineMode online_mode(const Environment& env) noexcept {
  return env.aoe_mode == 2 ? OnlineMode::tune : OnlineMode::off;
}

/// Options of online tuning. Aggregate: `aoe::OnlineOptions{.seed = 7, .budget = 40}`.
struct OnlineOptions {
  std::uint64_t seed = 0;  ///< the search policy's seed; each key's stream is derived from it
  /// Candidates concluded per key (failures included) before the best is fixed.
  std::size_t budget = 48;
  /// Converged: this many candidates in a row without a new best also end a key's tuning
  /// (0: only the budget, or an exhausted space, does).
  std::size_t patience = 0;
  /// Samples (calls) a promising candidate runs before its median can win. A candidate is
  /// promising while its samples stay within `promising_within` of the best.
  std::size_t confirmations = 5;
  double promising_within = 0.05;  ///< 0.05: up to 5 % slower than the best still counts
  /// A sample slower than `abandon_factor` times the best abandons its candidate at once.
  double abandon_factor = 2.0;
  /// The configuration used when nothing better is known, by parameter name (as a repository
  /// record). Empty: the space's first valid configuration in rank order. In tuning mode it is
  /// the first candidate measured, so that "best vs default" is known.
  std::vector<NamedValue> default_configuration{};
  /// The mode; nullopt: from AOE_MODE (`online_mode`).
  std::optional<OnlineMode> mode{};
  /// Tune keys the repository already holds; nullopt: from REPEAT_TUNE.
  std::optional<bool> repeat_tune{};
  /// The environment to read; nullopt: the process environment, read once at construction.
  std::optional<Environment> environment{};
  /// Transfer across devices (docs/transfer.md), as `TunerOptions::transfer`: on by default, a
  /// key being tuned measures other devices' best configurations of its problem first (the
  /// repository's, where it is a `transfer_repository`, and `transfer.sources`), after the
  /// default and the stored one.
  TransferOptions transfer{};
  /// Print the summary to stderr when the tuner is destroyed (at exit for a static one), if it
  /// tuned anything or met a repository error.
  bool summary_at_exit = true;
};

}  // namespace aoe

#endif  // AOE_ONLINE_ONLINE_OPTIONS_HPP
