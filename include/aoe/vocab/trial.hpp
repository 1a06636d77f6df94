// What the tuner records for each evaluated configuration, and the running state that stop
// conditions and observers read.
#ifndef AOE_VOCAB_TRIAL_HPP
#define AOE_VOCAB_TRIAL_HPP

#include "aoe/space/configuration.hpp"
#include "aoe/vocab/measurement.hpp"

#include <cstddef>
#include <limits>

namespace aoe {

/// One evaluation: the configuration, its measurement and when it happened.
struct Trial {
  Configuration configuration;
  Measurement measurement;
  std::size_t evaluation = 0;  ///< 1 for the first configuration measured in the run, ...
  double started = 0;          ///< seconds since the run started, on the tuner's clock
  double finished = 0;         ///< the tuner's clock counts search time plus measurement cost
};

/// The state of a run as stop conditions and observers see it.
struct TuningState {
  std::size_t evaluations = 0;        ///< unique configurations evaluated, failures included
  std::size_t valid_evaluations = 0;  ///< of which measured with status `correct`
  std::size_t since_improvement = 0;  ///< evaluations since the best value last improved
  double elapsed = 0;                 ///< seconds: search time plus measurement cost
  /// The best trial's score under the tuning's objective (its seconds for time).
  double best_value = std::numeric_limits<double>::infinity();
  /// Index in the history of the best trial so far; npos before the first valid measurement.
  std::size_t best_index = npos;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  [[nodiscard]] bool has_best() const noexcept { return best_index != npos; }
};

}  // namespace aoe

#endif  // AOE_VOCAB_TRIAL_HPP
