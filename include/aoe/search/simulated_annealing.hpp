// Simulated annealing over the neighbourhood graph of a space (Kirkpatrick, Gelatt, Vecchi,
// "Optimization by simulated annealing", Science 220, 1983), ask/tell, with restarts.
#ifndef AOE_SEARCH_SIMULATED_ANNEALING_HPP
#define AOE_SEARCH_SIMULATED_ANNEALING_HPP

#include "aoe/core/concepts.hpp"
#include "aoe/core/random.hpp"
#include "aoe/core/trial.hpp"
#include "aoe/search/cooling.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace aoe {

struct SimulatedAnnealingOptions {
  /// Initial temperature, relative to the best value seen: a move that is this fraction worse
  /// than the current point is accepted with probability 1/e at the start. Relative, so that
  /// the schedule does not depend on the objective's units.
  double initial_temperature = 0.1;
  /// Which moves are neighbours; `adjacent` (one parameter by one level) suits the ordered
  /// parameters of kernels; `hamming` jumps further.
  Neighbourhood neighbourhood = Neighbourhood::adjacent;
  /// Probability that a move is drawn from the `hamming` neighbourhood instead, so the walk can
  /// leave a basin along one parameter (0 disables).
  double long_jump = 0.1;
  /// Evaluations without a new best before the walk restarts at a fresh random point with the
  /// temperature reset (restarts when stuck, as in Kernel Tuner's `simulated_annealing`).
  std::size_t restart_after = 40;
};

/// Simulated annealing with a cooling schedule `Cooling` (ExponentialCooling, LinearCooling,
/// LogarithmicCooling or any `double(std::size_t k)` functor giving T_k / T_0). Moves through
/// `Space::random_neighbour`, so the space is never materialised; proposes each configuration
/// at most once. A failed measurement is worse than every valid one (never accepted unless
/// the current point failed too). A batch of n is n distinct neighbours of the current point;
/// observe applies the Metropolis rule to each in order.
template <class Cooling = ExponentialCooling>
class SimulatedAnnealing {
 public:
  SimulatedAnnealing() = default;
  explicit SimulatedAnnealing(SimulatedAnnealingOptions options, Cooling cooling = {})
      : options_(options), cooling_(cooling) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "annealing"; }

  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    visited_.clear();
    current_.reset();
    current_value_ = best_value_ = std::numeric_limits<double>::infinity();
    step_ = since_improvement_ = 0;
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    while (out.size() < n) {
      std::optional<Configuration> c;
      if (current_) {
        const Neighbourhood kind =
            rng_.bernoulli(options_.long_jump) ? Neighbourhood::hamming : options_.neighbourhood;
        c = visited_.fresh_neighbour(*view_, *current_, kind, rng_);
        if (!c && kind != Neighbourhood::hamming) {
          c = visited_.fresh_neighbour(*view_, *current_, Neighbourhood::hamming, rng_);
        }
      }
      if (!c) c = visited_.fresh(*view_, rng_);
      if (!c) break;
      visited_.insert(*c);
      out.push_back(std::move(*c));
    }
    return out;
  }

  void observe(std::span<const Trial> trials) {
    for (const auto& t : trials) {
      const double v = detail::score(t);
      if (v < best_value_) {
        best_value_ = v;
        since_improvement_ = 0;
      } else {
        ++since_improvement_;
      }
      if (!current_ || accept(v)) {
        current_ = t.configuration;
        current_value_ = v;
      }
      ++step_;
      if (since_improvement_ >= options_.restart_after) {
        current_.reset();
        current_value_ = std::numeric_limits<double>::infinity();
        step_ = since_improvement_ = 0;
      }
    }
  }

  [[nodiscard]] const SimulatedAnnealingOptions& options() const noexcept { return options_; }

 private:
  // Metropolis rule on the relative difference (v - current) / |best|.
  bool accept(double v) {
    if (v <= current_value_) return true;
    if (!std::isfinite(v)) return false;
    const double scale =
        std::isfinite(best_value_) && best_value_ != 0 ? std::fabs(best_value_) : 1.0;
    const double temperature = options_.initial_temperature * cooling_(step_);
    if (temperature <= 0) return false;
    return rng_.uniform() < std::exp(-(v - current_value_) / scale / temperature);
  }

  SimulatedAnnealingOptions options_;
  Cooling cooling_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::optional<Configuration> current_;
  double current_value_ = std::numeric_limits<double>::infinity();
  double best_value_ = std::numeric_limits<double>::infinity();
  std::size_t step_ = 0;
  std::size_t since_improvement_ = 0;
};

static_assert(search_policy<SimulatedAnnealing<>>);

}  // namespace aoe

#endif  // AOE_SEARCH_SIMULATED_ANNEALING_HPP
