// The result of measuring one configuration: a value, its raw samples and a status.
#ifndef AOE_VOCAB_MEASUREMENT_HPP
#define AOE_VOCAB_MEASUREMENT_HPP

#include "aoe/vocab/status.hpp"
#include "aoe/vocab/timing.hpp"

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

/// The energy of one run of a configuration, where the runner knows it: modelled (the
/// simulator's energy model) or read from a counter around the timed runs (NVML on a GPU, RAPL
/// on the host). docs/energy.md.
struct Energy {
  double joules = 0;  ///< one run's energy, the run `Measurement::value` times
  double watts = 0;   ///< average power over the timed runs: joules per run over seconds per run
  TimingKind kind = TimingKind::simulated;  ///< simulated (a model's) or measured (a counter's)
  friend bool operator==(const Energy&, const Energy&) = default;
};

/// One configuration's measurement. A failing configuration is data: its status says why and
/// its message says what happened; it never ends a tuning run. The objective is minimised; the
/// built-in runners report times in seconds.
struct Measurement {
  Status status = Status::correct;
  double value = std::numeric_limits<double>::infinity();  ///< the statistic of the samples
  std::vector<double> samples;                             ///< raw samples, in run order
  std::string message;                                     ///< why it failed, for a person
  /// Seconds the evaluation cost (compile, warm-up and runs). Runners with their own clock
  /// (the simulator, replay) report the device time they charge; others the wall time.
  double cost = 0;
  /// Energy and average power, each simulated or measured; empty where the runner cannot tell
  /// (unknown). Files written for a time-only tuning do not carry it (docs/energy.md).
  std::optional<Energy> energy;

  [[nodiscard]] bool ok() const noexcept { return status == Status::correct; }

  static Measurement success(double value, std::vector<double> samples = {}, double cost = 0) {
    Measurement m;
    m.value = value;
    m.samples = std::move(samples);
    m.cost = cost;
    return m;
  }
  static Measurement failure(Status status, std::string message, double cost = 0) {
    Measurement m;
    m.status = status;
    m.message = std::move(message);
    m.cost = cost;
    return m;
  }
};

}  // namespace aoe

#endif  // AOE_VOCAB_MEASUREMENT_HPP
