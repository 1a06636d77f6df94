// Cooling schedules for simulated annealing: the temperature, as a fraction of the initial one,
// after k evaluations since the last (re)start.
#ifndef AOE_SEARCH_COOLING_HPP
#define AOE_SEARCH_COOLING_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace aoe {

/// T_k = T_0 * rate^k: the geometric schedule of Kirkpatrick, Gelatt, Vecchi ("Optimization by
/// simulated annealing", Science 1983). The default rate halves the temperature in ~23 steps,
/// which suits budgets of 50-500 evaluations.
struct ExponentialCooling {
  double rate = 0.97;
  [[nodiscard]] double operator()(std::size_t k) const {
    return std::pow(rate, static_cast<double>(k));
  }
};

/// T_k = T_0 * max(floor, 1 - k / steps): falls to `floor` over `steps` evaluations.
struct LinearCooling {
  std::size_t steps = 100;
  double floor = 0.01;
  [[nodiscard]] double operator()(std::size_t k) const {
    return std::max(floor, 1.0 - static_cast<double>(k) / static_cast<double>(steps));
  }
};

/// T_k = T_0 / (1 + scale * ln(1 + k)): the slow schedule whose c / log k form guarantees
/// convergence in the limit (Geman, Geman, IEEE PAMI 1984; Hajek, Math. Oper. Res. 1988).
struct LogarithmicCooling {
  double scale = 1.0;
  [[nodiscard]] double operator()(std::size_t k) const {
    return 1.0 / (1.0 + scale * std::log1p(static_cast<double>(k)));
  }
};

}  // namespace aoe

#endif  // AOE_SEARCH_COOLING_HPP
