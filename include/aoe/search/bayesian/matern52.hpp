// The Matérn 5/2 kernel with one length scale per dimension (ARD).
#ifndef AOE_SEARCH_BAYESIAN_MATERN52_HPP
#define AOE_SEARCH_BAYESIAN_MATERN52_HPP

#include <cmath>
#include <cstddef>
#include <string_view>
#include <vector>

namespace aoe {

/// Matérn covariance with nu = 5/2, unit signal variance (the process scales it):
/// k(r) = (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r), r the length-scaled distance. Twice
/// differentiable sample paths: the default for Bayesian optimisation (Snoek, Larochelle,
/// Adams, "Practical Bayesian optimization of machine learning algorithms", NeurIPS 2012;
/// Rasmussen, Williams, "Gaussian Processes for Machine Learning", 2006, eq. 4.17).
struct Matern52 {
  static constexpr std::string_view name = "matern52";
  /// One length scale per input dimension (inputs in the unit cube).
  std::vector<double> length_scales;

  [[nodiscard]] double operator()(const double* a, const double* b) const {
    double r2 = 0;
    for (std::size_t d = 0; d < length_scales.size(); ++d) {
      const double u = (a[d] - b[d]) / length_scales[d];
      r2 += u * u;
    }
    const double s5r = std::sqrt(5.0 * r2);
    return (1.0 + s5r + 5.0 * r2 / 3.0) * std::exp(-s5r);
  }
};

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_MATERN52_HPP
