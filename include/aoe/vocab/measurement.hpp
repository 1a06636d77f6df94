// The result of measuring one configuration: a value, its raw samples and a status.
#ifndef AOE_VOCAB_MEASUREMENT_HPP
#define AOE_VOCAB_MEASUREMENT_HPP

#include "aoe/vocab/status.hpp"

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace aoe {

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
