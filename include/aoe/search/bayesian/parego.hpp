// ParEGO's scalarisation of time and energy (Knowles, "ParEGO: a hybrid algorithm with on-line
// landscape approximation for expensive multiobjective optimization problems", IEEE TEC 10(1),
// 2006): each objective normalised to [0, 1] over the observations, a weight vector drawn from
// the 11 of a simplex lattice each iteration, and the augmented Tchebycheff function
// max_j(w_j z_j) + 0.05 sum_j(w_j z_j). We normalise log time and log energy (kernel times
// span orders of magnitude), and a power cap's excess is a penalty above every feasible value.
#ifndef AOE_SEARCH_BAYESIAN_PAREGO_HPP
#define AOE_SEARCH_BAYESIAN_PAREGO_HPP

#include "aoe/core/random.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace aoe {

/// The scalarisation a multi-objective Bayesian search fits its surrogate on.
class ParegoScalarisation {
 public:
  static constexpr int lattice = 10;  ///< weights i/10, i = 0..10 (ParEGO's s = 10 for k = 2)
  static constexpr double rho = 0.05;

  explicit ParegoScalarisation(double power_cap_watts = 0) : cap_(power_cap_watts) {}

  /// Draws the next weight vector.
  void draw_weights(Rng& rng) { w_time_ = static_cast<double>(rng.below(lattice + 1)) / lattice; }
  [[nodiscard]] double time_weight() const noexcept { return w_time_; }

  /// The normalisation's bounds, from every valid observation with energy.
  void normalise_over(std::span<const Trial> raw) {
    lo_t_ = lo_e_ = std::numeric_limits<double>::infinity();
    hi_t_ = hi_e_ = -std::numeric_limits<double>::infinity();
    for (const auto& t : raw) {
      if (!usable(t)) continue;
      const double lt = std::log(t.measurement.value), le = std::log(t.measurement.energy->joules);
      lo_t_ = std::min(lo_t_, lt), hi_t_ = std::max(hi_t_, lt);
      lo_e_ = std::min(lo_e_, le), hi_e_ = std::max(hi_e_, le);
    }
  }

  /// The trial as the surrogate sees it: its value replaced by 1 + the augmented Tchebycheff
  /// function (in [1, 2.1]), plus the cap's relative excess; a failure or a trial without
  /// energy unchanged (the surrogate scores failures itself).
  [[nodiscard]] Trial scalarised(const Trial& t) const {
    if (!t.measurement.ok()) return t;
    Trial s = t;
    if (!usable(t)) {
      s.measurement.status = Status::runtime;  // no energy: not a point of the front
      s.measurement.message = "no energy to scalarise";
      return s;
    }
    const double zt = unit(std::log(t.measurement.value), lo_t_, hi_t_);
    const double ze = unit(std::log(t.measurement.energy->joules), lo_e_, hi_e_);
    const double a = w_time_ * zt, b = (1 - w_time_) * ze;
    double v = 1 + std::max(a, b) + rho * (a + b);
    if (cap_ > 0 && t.measurement.energy->watts > cap_) {
      v += 1.1 + (t.measurement.energy->watts - cap_) / cap_;
    }
    s.measurement.value = v;
    return s;
  }

 private:
  [[nodiscard]] static bool usable(const Trial& t) noexcept {
    return t.measurement.ok() && t.measurement.energy && t.measurement.value > 0 &&
           t.measurement.energy->joules > 0;
  }
  [[nodiscard]] static double unit(double x, double lo, double hi) noexcept {
    return hi > lo ? (x - lo) / (hi - lo) : 0.0;
  }

  double cap_ = 0;
  double w_time_ = 0.5;
  double lo_t_ = 0, hi_t_ = 0, lo_e_ = 0, hi_e_ = 0;
};

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_PAREGO_HPP
