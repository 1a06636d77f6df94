// What online tuning did, per key and in total: the summary printed at exit or on request.
#ifndef AOE_ONLINE_ONLINE_SUMMARY_HPP
#define AOE_ONLINE_ONLINE_SUMMARY_HPP

#include "aoe/online/online_options.hpp"
#include "aoe/vocab/record.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace aoe {

/// Where a key's configuration in use came from.
enum class OnlineSource : std::uint8_t {
  default_configuration,  ///< nothing better known
  repository,             ///< the repository's record (a previous run's winner)
  tuned,                  ///< found by this run's online tuning
};

[[nodiscard]] constexpr std::string_view to_string(OnlineSource s) noexcept {
  switch (s) {
    case OnlineSource::default_configuration: return "default";
    case OnlineSource::repository: return "repository";
    case OnlineSource::tuned: return "tuned";
  }
  return "default";
}

/// One key's account.
struct OnlineKeySummary {
  TuningKey key;
  std::uint64_t calls = 0;      ///< calls of `begin` for the key
  bool tuning = false;          ///< still being tuned
  std::size_t evaluations = 0;  ///< candidates concluded (failures included)
  std::size_t failed = 0;       ///< candidates whose kernel failed (threw)
  std::size_t abandoned = 0;    ///< candidates abandoned after one far-slower sample
  std::size_t confirmed = 0;    ///< candidates repeated as promising before being judged
  OnlineSource source = OnlineSource::default_configuration;
  std::string best;  ///< the configuration in use, as text
  double best_seconds = std::numeric_limits<double>::quiet_NaN();  ///< its measured median
  double default_seconds =
      std::numeric_limits<double>::quiet_NaN();  ///< the default's, if measured
  std::uint64_t exploration_calls = 0;           ///< calls that ran a candidate
  double exploration_seconds = 0;                ///< their measured time
  /// Time lost to exploration: exploration_seconds minus exploration_calls times the best's
  /// time (what those calls would have cost with the configuration finally found).
  double regret_seconds = 0;
  std::string repository_error;    ///< the last lookup or store error, if any
  std::size_t transfer_seeds = 0;  ///< other devices' configurations measured first
};

/// Every key's account.
struct OnlineSummary {
  OnlineMode mode = OnlineMode::off;
  std::vector<OnlineKeySummary> keys;  ///< in the order keys were first called

  [[nodiscard]] std::uint64_t calls() const noexcept {
    std::uint64_t n = 0;
    for (const auto& k : keys) n += k.calls;
    return n;
  }
  [[nodiscard]] double regret_seconds() const noexcept {
    double r = 0;
    for (const auto& k : keys) r += k.regret_seconds;
    return r;
  }

  /// A table for a person: one line per key.
  [[nodiscard]] std::string to_string() const {
    std::string out = "aoe online (" + std::string(aoe::to_string(mode)) +
                      "): " + std::to_string(keys.size()) + " keys, " + std::to_string(calls()) +
                      " calls, regret " + format(regret_seconds()) + " s\n";
    for (const auto& k : keys) {
      out += "  " + k.key.problem + " @ " + k.key.device + ": " + std::to_string(k.calls) +
             " calls, " + std::string(aoe::to_string(k.source));
      if (k.tuning) out += " (tuning)";
      out += " " + k.best;
      if (!std::isnan(k.best_seconds)) out += ", best " + format(k.best_seconds) + " s";
      if (!std::isnan(k.default_seconds)) out += " vs default " + format(k.default_seconds) + " s";
      if (k.evaluations > 0) {
        out += ", " + std::to_string(k.evaluations) + " candidates (" +
               std::to_string(k.confirmed) + " confirmed, " + std::to_string(k.abandoned) +
               " abandoned, " + std::to_string(k.failed) + " failed), regret " +
               format(k.regret_seconds) + " s";
      }
      if (k.transfer_seeds > 0) {
        out += ", " + std::to_string(k.transfer_seeds) + " from other devices";
      }
      if (!k.repository_error.empty()) out += "; repository: " + k.repository_error;
      out += '\n';
    }
    return out;
  }

 private:
  static std::string format(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", x);
    return buffer;
  }
};

}  // namespace aoe

#endif  // AOE_ONLINE_ONLINE_SUMMARY_HPP
