// Simulated annealing over the neighbourhood graph of a space (Kirkpatrick, Gelatt, Vecchi,
// "Optimization by simulated annealing", Science 220, 1983), ask/tell, with restarts.
#ifndef AOE_SEARCH_SIMULATED_ANNEALING_HPP
#define AOE_SEARCH_SIMULATED_ANNEALING_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/cooling.hpp"
#include "aoe/search/detail/initial_design.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace aoe {

struct SimulatedAnnealingOptions {
  /// Initial temperature, relative to the best value seen: a move that is this fraction worse
  /// than the current point is accepted with probability 1/e at the start. Relative, so that
  /// the schedule does not depend on the objective's units. 0.03: chosen on the protocol's
  /// tuning part over 0.1 (bench/tune-defaults; docs/research.md, "Tuned defaults").
  double initial_temperature = 0.03;
  /// Which moves are neighbours; `adjacent` (one parameter by one level) suits the ordered
  /// parameters of kernels; `hamming` jumps further.
  Neighbourhood neighbourhood = Neighbourhood::adjacent;
  /// Probability that a move is drawn from the `hamming` neighbourhood instead, so the walk can
  /// leave a basin along one parameter (0 disables).
  double long_jump = 0.1;
  /// Evaluations without a new best before the walk restarts with the temperature reset
  /// (restarts when stuck, as in Kernel Tuner's `simulated_annealing`), from the best of
  /// `restart_samples` fresh points of a Latin hypercube.
  std::size_t restart_after = 40;
  /// Every other restart resumes from the best configuration found so far instead (the
  /// temperature reset, its known neighbours excluded): a short budget keeps refining the
  /// best region, a long one still explores fresh ones.
  bool restart_from_best = true;
  /// Configurations measured before the walk starts from the best of them: `initial` first,
  /// then a Latin hypercube over the space. A walk from the best of a few spread points leaves
  /// the slow regions of a space at once instead of climbing out of them step by step.
  std::size_t initial_samples = 8;
  std::size_t restart_samples = 4;
  /// Configurations to measure first, in order (a runner's default configuration, the best
  /// of an earlier run); invalid or repeated ones are skipped. Indices into the space that
  /// is tuned (`Space::find` builds them from named values).
  std::vector<Configuration> initial{};
};

/// Simulated annealing with a cooling schedule `Cooling` (ExponentialCooling, LinearCooling,
/// LogarithmicCooling or any `double(std::size_t k)` functor giving T_k / T_0). The walk starts
/// from the best of an initial design (`initial`, then a Latin hypercube) and moves through
/// `Space::random_neighbour`, so the space is never materialised; proposes each configuration
/// at most once. A failed measurement is worse than every valid one (never accepted unless
/// the current point failed too). A batch of n is n distinct neighbours of the current point;
/// observe applies the Metropolis rule to each in order. Trials it did not propose (another
/// policy's, in an ensemble) are taken as its own: known, and accepted by the same rule.
template <class Cooling = ExponentialCooling>
class SimulatedAnnealing {
 public:
  SimulatedAnnealing() = default;
  explicit SimulatedAnnealing(SimulatedAnnealingOptions options, Cooling cooling = {})
      : options_(std::move(options)), cooling_(cooling) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "annealing"; }

  /// Transfer's seeds (aoe::takes_warm_start): measured first, after `initial`, within the
  /// initial design; replaced by the next call.
  bool warm_start(std::span<const Configuration> seeds) {
    warm_.assign(seeds.begin(), seeds.end());
    return true;
  }

  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    visited_.clear();
    current_.reset();
    best_.reset();
    current_value_ = best_value_ = std::numeric_limits<double>::infinity();
    step_ = since_improvement_ = restarts_ = 0;
    new_design(detail::first_points(options_.initial, warm_),
               std::max<std::size_t>(1, options_.initial_samples));
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    while (out.size() < n) {
      std::optional<Configuration> c;
      if (!design_.empty()) {
        out.push_back(std::move(design_.back()));
        design_.pop_back();
        continue;
      }
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
      visited_.insert(t.configuration);
      const double v = detail::score(t);
      if (v < best_value_) {
        best_value_ = v;
        best_ = t.configuration;
        since_improvement_ = 0;
      } else {
        ++since_improvement_;
      }
      if (design_pending_.erase(t.configuration) > 0) {
        // The design is not walked: its best point is where the walk starts.
        if (!current_ || v < current_value_) {
          current_ = t.configuration;
          current_value_ = v;
        }
        continue;
      }
      if (!current_ || accept(v)) {
        current_ = t.configuration;
        current_value_ = v;
      }
      ++step_;
      if (since_improvement_ >= options_.restart_after) {
        step_ = since_improvement_ = 0;
        // A best that is still one of transfer's seeds is another device's basin that the walk
        // could not improve on: the restart leaves it for fresh points (docs/transfer.md).
        const bool in_seed_basin =
            best_ && std::find(warm_.begin(), warm_.end(), *best_) != warm_.end();
        if (options_.restart_from_best && ++restarts_ % 2 == 1 && best_ && !in_seed_basin) {
          current_ = best_;
          current_value_ = best_value_;
        } else {
          current_.reset();
          current_value_ = std::numeric_limits<double>::infinity();
          new_design({}, std::max<std::size_t>(1, options_.restart_samples));
        }
      }
    }
  }

  [[nodiscard]] const SimulatedAnnealingOptions& options() const noexcept { return options_; }

 private:
  // Queues a design (proposed last-first from the back of design_, so reversed here).
  void new_design(std::span<const Configuration> given, std::size_t n) {
    design_ = detail::initial_design(*view_, given, n, visited_, rng_);
    std::reverse(design_.begin(), design_.end());
    design_pending_.clear();
    design_pending_.insert(design_.begin(), design_.end());
  }

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
  std::vector<Configuration> warm_;  // transfer's seeds (warm_start)
  Cooling cooling_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::vector<Configuration> design_;  // still to propose, the next one last
  std::unordered_set<Configuration, ConfigurationHash> design_pending_;  // not observed yet
  std::optional<Configuration> current_;
  std::optional<Configuration> best_;
  std::size_t restarts_ = 0;
  double current_value_ = std::numeric_limits<double>::infinity();
  double best_value_ = std::numeric_limits<double>::infinity();
  std::size_t step_ = 0;
  std::size_t since_improvement_ = 0;
};

static_assert(search_policy<SimulatedAnnealing<>>);

}  // namespace aoe

#endif  // AOE_SEARCH_SIMULATED_ANNEALING_HPP
