// The squared-exponential (RBF) kernel with one length scale per dimension (ARD).
#ifndef AOE_SEARCH_BAYESIAN_SQUARED_EXPONENTIAL_HPP
#define AOE_SEARCH_BAYESIAN_SQUARED_EXPONENTIAL_HPP

#include <cmath>
#include <cstddef>
#include <string_view>
#include <vector>

namespace aoe {

/// k(r) = exp(-r^2 / 2), r the length-scaled distance, unit signal variance (Rasmussen,
/// Williams, "Gaussian Processes for Machine Learning", 2006, eq. 4.9). Infinitely smooth;
/// often too smooth for kernel run times, hence Matern52 is the default.
struct SquaredExponential {
  static constexpr std::string_view name = "squared_exponential";
  std::vector<double> length_scales;

  [[nodiscard]] double operator()(const double* a, const double* b) const {
    double r2 = 0;
    for (std::size_t d = 0; d < length_scales.size(); ++d) {
      const double u = (a[d] - b[d]) / length_scales[d];
      r2 += u * u;
    }
    return std::exp(-0.5 * r2);
  }
};

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_SQUARED_EXPONENTIAL_HPP
