// Acquisition functions for Bayesian search (minimisation, on the surrogate's normalised scale)
// and GP-Hedge, a portfolio that learns which of them works on the problem at hand.
#ifndef AOE_SEARCH_BAYESIAN_ACQUISITION_HPP
#define AOE_SEARCH_BAYESIAN_ACQUISITION_HPP

#include "aoe/core/random.hpp"

#include <Eigen/Core>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <span>
#include <string_view>
#include <vector>

namespace aoe {

namespace detail {
[[nodiscard]] inline double normal_pdf(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
}
[[nodiscard]] inline double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// Index of the largest score among live candidates; npos if none is live.
template <class Score>
std::size_t argmax(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                   std::span<const char> alive, Score score) {
  std::size_t best = static_cast<std::size_t>(-1);
  double best_score = -std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < mean.size(); ++j) {
    if (!alive[static_cast<std::size_t>(j)]) continue;
    const double s = score(mean(j), sd(j));
    if (best == static_cast<std::size_t>(-1) || s > best_score) {
      best_score = s;
      best = static_cast<std::size_t>(j);
    }
  }
  return best;
}
}  // namespace detail

/// Expected improvement over the best value f*: E[max(f* - xi - Y, 0)] (Jones, Schonlau,
/// Welch, "Efficient global optimization of expensive black-box functions", J. Global Optim.
/// 1998). `xi` trades exploitation for exploration (0.01 as in scikit-optimize).
struct ExpectedImprovement {
  static constexpr std::string_view name = "ei";
  double xi = 0.01;
  [[nodiscard]] double operator()(double mean, double sd, double best) const {
    const double gain = best - mean - xi;
    if (sd <= 0) return std::max(gain, 0.0);
    const double z = gain / sd;
    return gain * detail::normal_cdf(z) + sd * detail::normal_pdf(z);
  }
  std::size_t select(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                     std::span<const char> alive, double best, Rng& /*rng*/) {
    return detail::argmax(mean, sd, alive, [&](double m, double s) { return (*this)(m, s, best); });
  }
};

/// Probability of improvement P(Y < f* - xi) (Kushner, J. Basic Eng. 1964).
struct ProbabilityOfImprovement {
  static constexpr std::string_view name = "pi";
  double xi = 0.01;
  [[nodiscard]] double operator()(double mean, double sd, double best) const {
    if (sd <= 0) return mean < best - xi ? 1.0 : 0.0;
    return detail::normal_cdf((best - xi - mean) / sd);
  }
  std::size_t select(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                     std::span<const char> alive, double best, Rng& /*rng*/) {
    return detail::argmax(mean, sd, alive, [&](double m, double s) { return (*this)(m, s, best); });
  }
};

/// Upper confidence bound for minimisation, i.e. the lower bound mean - kappa * sd, negated
/// (Srinivas, Krause, Kakade, Seeger, "Gaussian process optimization in the bandit setting",
/// ICML 2010). kappa = 1.96 as in scikit-optimize's LCB.
struct UpperConfidenceBound {
  static constexpr std::string_view name = "ucb";
  double kappa = 1.96;
  [[nodiscard]] double operator()(double mean, double sd, double /*best*/) const {
    return -(mean - kappa * sd);
  }
  std::size_t select(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                     std::span<const char> alive, double best, Rng& /*rng*/) {
    return detail::argmax(mean, sd, alive, [&](double m, double s) { return (*this)(m, s, best); });
  }
};

/// GP-Hedge (Hoffman, Brochu, de Freitas, "Portfolio allocation for Bayesian optimization",
/// UAI 2011): EI, PI and UCB each nominate a candidate; one nominee is chosen with probability
/// proportional to exp(eta * gain); after each observation every acquisition's gain grows by
/// the negated posterior mean at its nominee (so the ones that point at good regions win).
/// `discount` < 1 forgets old rewards, as Kernel Tuner's multi-acquisition BO does.
struct Portfolio {
  static constexpr std::string_view name = "portfolio";
  double eta = 1.0;
  double discount = 0.95;
  ExpectedImprovement ei{};
  ProbabilityOfImprovement pi{};
  UpperConfidenceBound ucb{};

  std::size_t select(const Eigen::VectorXd& mean, const Eigen::VectorXd& sd,
                     std::span<const char> alive, double best, Rng& rng) {
    const std::array<std::size_t, 3> nominee{ei.select(mean, sd, alive, best, rng),
                                             pi.select(mean, sd, alive, best, rng),
                                             ucb.select(mean, sd, alive, best, rng)};
    nominees_.push_back(nominee);
    double top = -std::numeric_limits<double>::infinity();
    for (const double g : gains_) top = std::max(top, g);
    std::array<double, 3> p{};
    double total = 0;
    for (std::size_t k = 0; k < 3; ++k) total += p[k] = std::exp(eta * (gains_[k] - top));
    double u = rng.uniform() * total;
    std::size_t pick = 0;
    while (pick + 1 < 3 && u >= p[pick]) u -= p[pick++];
    last_choice_ = pick;
    return nominee[pick];
  }

  /// After observations: `mean` is the updated posterior mean of every candidate.
  void reward(const Eigen::VectorXd& mean) {
    for (const auto& nominee : nominees_) {
      for (std::size_t k = 0; k < 3; ++k) {
        if (nominee[k] < static_cast<std::size_t>(mean.size())) {
          gains_[k] = discount * gains_[k] - mean(static_cast<Eigen::Index>(nominee[k]));
        }
      }
    }
    nominees_.clear();
  }
  /// Forget pending nominations (the candidate set was rebuilt).
  void reset_nominations() { nominees_.clear(); }

  [[nodiscard]] const std::array<double, 3>& gains() const noexcept { return gains_; }
  [[nodiscard]] std::size_t last_choice() const noexcept { return last_choice_; }

 private:
  std::array<double, 3> gains_{};
  std::vector<std::array<std::size_t, 3>> nominees_;
  std::size_t last_choice_ = 0;
};

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_ACQUISITION_HPP
