// Gaussian-process regression over the unit-cube encoding of a space: the surrogate of Bayesian
// search and a cost model for pre-screening, with incremental (rank-one) updates.
#ifndef AOE_SEARCH_BAYESIAN_GAUSSIAN_PROCESS_HPP
#define AOE_SEARCH_BAYESIAN_GAUSSIAN_PROCESS_HPP

#include "aoe/search/bayesian/matern52.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/measurement.hpp"
#include "aoe/vocab/trial.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace aoe {

struct GaussianProcessOptions {
  /// Model log(value) when every valid value is positive: kernel times span orders of
  /// magnitude and their logarithm is far closer to stationary.
  bool log_objective = true;
  /// A failed configuration is modelled this many standard deviations above the worst valid
  /// value (a penalty; failures are data, never excluded).
  double failure_penalty = 0.25;
  /// Candidate isotropic length scales, then noise variances (relative to the signal variance),
  /// scored by the log marginal likelihood (Rasmussen, Williams 2006, eq. 5.8), with the signal
  /// variance profiled out in closed form, plus the length scales' log prior (below). The grid
  /// reaches 16 so that the long scales the prior favours in many dimensions are tried.
  std::vector<double> length_grid{0.05, 0.1, 0.2, 0.35, 0.6, 1.0, 2.0, 4.0, 8.0, 16.0};
  std::vector<double> noise_grid{1e-6, 1e-4, 1e-2, 1e-1};
  /// Coordinate sweeps over per-dimension length scales (automatic relevance determination):
  /// each dimension's scale is halved or doubled while the likelihood improves.
  std::size_t ard_sweeps = 2;
  /// The likelihood is evaluated on at most this many observations (an evenly spaced subset
  /// beyond it, the "subset of data" approximation, Rasmussen, Williams 2006, sec. 8.3.1), so a
  /// refit stays O(1) in the number of observations; the posterior always uses them all.
  std::size_t hyper_max_points = 128;
  double min_length = 0.02;
  double max_length = 50.0;
  /// A log-normal prior on each length scale, l ~ LogNormal(mu, sd^2) with mu =
  /// `length_prior_mean` + ln(d) / 2 for d dimensions (Hvarfner, Hellsten, Nardi, "Vanilla
  /// Bayesian optimization performs great in high dimensions", ICML 2024: mu = sqrt(2) + ln(d)/2,
  /// sd = sqrt(3); the prior's median grows with sqrt(d), as distances in the unit cube do).
  /// The hyperparameters maximise likelihood times prior (MAP, the density of l as BoTorch
  /// evaluates it), not the likelihood alone: per-parameter length scales fitted on a few dozen
  /// points by likelihood alone can be confidently short along a parameter the data barely
  /// constrains, and the prior pulls them back until the data says otherwise (docs/search.md,
  /// "Length-scale prior"). `length_prior_sd` 0: no prior, the likelihood alone.
  double length_prior_sd = 1.7320508075688772;
  double length_prior_mean = 1.4142135623730951;
  /// Diagonal jitter added, times 10 per retry, when a Cholesky factorisation fails.
  double jitter = 1e-10;
  std::size_t jitter_retries = 8;
};

/// GP regression with kernel `Kernel` (Matern52, SquaredExponential: `double(const double*,
/// const double*)` with a `length_scales` vector). Models `cost_model`: `fit` encodes the trials
/// with `Space::encode`, normalises the objective (log, then standardised; failures get a
/// penalty), picks hyperparameters by marginal likelihood and factorises; `predict` returns
/// the posterior on that normalised scale (monotone in the objective, so rankings hold).
/// For Bayesian search it also keeps a set of candidate points whose posterior it updates in
/// O(n m) per new observation (`append`), and can drop the last observations (`truncate`),
/// which is how constant-liar batches are taken back.
template <class Kernel = Matern52>
class GaussianProcess {
 public:
  GaussianProcess() = default;
  explicit GaussianProcess(GaussianProcessOptions options) : options_(std::move(options)) {}

  // ---- cost_model -------------------------------------------------------------------------

  void fit(SpaceView view, std::span<const Trial> history) { fit(view, history, true); }

  /// `fit` without the hyperparameter search: the length scales and noise of the last fit are
  /// kept (the first fit on a space still chooses them). What Bayesian search uses to re-base
  /// its bounded active set between full refits: O(n^3 + n^2 m), no likelihood evaluations.
  void fit_keeping_hyperparameters(SpaceView view, std::span<const Trial> history) {
    fit(view, history, kernel_.length_scales.size() != view->dimensions());
  }

  /// `fit`, choosing the hyperparameters by marginal likelihood only when `optimise` is true.
  void fit(SpaceView view, std::span<const Trial> history, bool optimise) {
    view_ = view;
    dims_ = view->dimensions();
    set_scale(history);
    n_ = 0;
    C_.clear();
    candidates_ = 0;
    reserve(history.size() + 16);
    for (const auto& t : history) {
      const auto x = view->encode(t.configuration);
      std::copy(x.begin(), x.end(), X_.begin() + static_cast<std::ptrdiff_t>(n_ * dims_));
      y_(static_cast<Eigen::Index>(n_)) = to_model(t.measurement);
      ++n_;
    }
    if (optimise) optimise_hyperparameters();
    factorise();
  }

  [[nodiscard]] std::vector<Prediction> predict(std::span<const Configuration> queries) const {
    std::vector<Prediction> out(queries.size());
    const auto n = static_cast<Eigen::Index>(n_);
    if (queries.empty()) return out;
    Eigen::MatrixXd K(n, static_cast<Eigen::Index>(queries.size()));
    std::vector<double> x;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      x = view_->encode(queries[q]);
      for (Eigen::Index i = 0; i < n; ++i) K(i, static_cast<Eigen::Index>(q)) = k(row(i), x.data());
    }
    if (n > 0) L_.topLeftCorner(n, n).template triangularView<Eigen::Lower>().solveInPlace(K);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const auto col = K.col(static_cast<Eigen::Index>(q));
      out[q].mean = n > 0 ? col.dot(z_.head(n)) : 0.0;
      out[q].variance = std::max(1e-12, signal_ * (1.0 - col.squaredNorm()));
    }
    return out;
  }

  // ---- incremental use (Bayesian search) --------------------------------------------------

  /// The normalised value a measurement is modelled as (scale fixed at the last `fit`).
  [[nodiscard]] double to_model(const Measurement& m) const {
    if (!m.ok() || !std::isfinite(m.value)) return worst_ + options_.failure_penalty;
    if (log_ && m.value > 0) return (std::log(m.value) - offset_) / spread_;
    return ((log_ ? offset_ : m.value) - offset_) / spread_;
  }

  /// Adds an observation at unit-cube point x (normalised value y) without refitting the
  /// hyperparameters: O(n^2) for the factor and O(n m) for the candidates.
  void append(std::span<const double> x, double y) {
    reserve(n_ + 1);
    const auto n = static_cast<Eigen::Index>(n_);
    std::copy(x.begin(), x.end(), X_.begin() + static_cast<std::ptrdiff_t>(n_ * dims_));
    y_(n) = y;
    Eigen::VectorXd l(n);
    for (Eigen::Index i = 0; i < n; ++i) l(i) = k(row(i), x.data());
    if (n > 0) L_.topLeftCorner(n, n).template triangularView<Eigen::Lower>().solveInPlace(l);
    double d2 = 1.0 + noise_ - l.squaredNorm();
    double jitter = options_.jitter;
    for (std::size_t r = 0; d2 <= 1e-12 && r < options_.jitter_retries; ++r, jitter *= 10) {
      d2 += jitter;
    }
    const double diag = std::sqrt(std::max(d2, 1e-12));
    L_.row(n).head(n) = l.transpose();
    L_(n, n) = diag;
    z_(n) = (y - (n > 0 ? l.dot(z_.head(n)) : 0.0)) / diag;
    const auto m = static_cast<Eigen::Index>(candidates_);
    if (m > 0) {
      Eigen::RowVectorXd kc(m);
      for (Eigen::Index j = 0; j < m; ++j) kc(j) = k(x.data(), candidate(j));
      if (n > 0) kc.noalias() -= l.transpose() * V_.topRows(n);
      V_.row(n) = kc / diag;
      sum_mean_ += V_.row(n).transpose() * z_(n);
      sum_sq_ += V_.row(n).transpose().cwiseAbs2();
    }
    ++n_;
  }

  /// Forgets every observation after the first `n` (exact: the factor is lower triangular).
  void truncate(std::size_t n) {
    if (n >= n_) return;
    for (auto i = static_cast<Eigen::Index>(n); i < static_cast<Eigen::Index>(n_); ++i) {
      if (candidates_ > 0) {
        sum_mean_ -= V_.row(i).transpose() * z_(i);
        sum_sq_ -= V_.row(i).transpose().cwiseAbs2();
      }
    }
    n_ = n;
  }

  /// Replaces the candidate set (rows of unit-cube coordinates, `dims()` each).
  void set_candidates(std::span<const double> coordinates) {
    C_.assign(coordinates.begin(), coordinates.end());
    candidates_ = dims_ ? C_.size() / dims_ : 0;
    V_.resize(static_cast<Eigen::Index>(capacity_), static_cast<Eigen::Index>(candidates_));
    fill_cross(0);
  }

  /// Adds candidates (rows of unit-cube coordinates) to the set.
  void add_candidates(std::span<const double> coordinates) {
    const std::size_t first = candidates_;
    C_.insert(C_.end(), coordinates.begin(), coordinates.end());
    candidates_ = C_.size() / dims_;
    V_.conservativeResize(static_cast<Eigen::Index>(capacity_),
                          static_cast<Eigen::Index>(candidates_));
    fill_cross(first);
  }

  /// Posterior mean and standard deviation of every candidate (normalised scale): O(n m).
  void candidate_posterior(Eigen::VectorXd& mean, Eigen::VectorXd& sd) const {
    const auto n = static_cast<Eigen::Index>(n_);
    const auto m = static_cast<Eigen::Index>(candidates_);
    if (n == 0) {
      mean.setZero(m);
      sd.setConstant(m, std::sqrt(signal_));
      return;
    }
    mean = sum_mean_;
    sd = (signal_ * (1.0 - sum_sq_.array()).max(1e-12)).sqrt().matrix();
  }

  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  [[nodiscard]] std::size_t candidate_count() const noexcept { return candidates_; }
  [[nodiscard]] std::size_t dims() const noexcept { return dims_; }
  /// Smallest normalised value among the observations (lies included).
  [[nodiscard]] double best() const {
    return n_ ? y_.head(static_cast<Eigen::Index>(n_)).minCoeff()
              : std::numeric_limits<double>::infinity();
  }
  [[nodiscard]] const Kernel& kernel() const noexcept { return kernel_; }
  [[nodiscard]] const GaussianProcessOptions& options() const noexcept { return options_; }
  [[nodiscard]] double noise() const noexcept { return noise_; }
  [[nodiscard]] double signal_variance() const noexcept { return signal_; }

 private:
  [[nodiscard]] const double* row(Eigen::Index i) const {
    return X_.data() + static_cast<std::ptrdiff_t>(i) * static_cast<std::ptrdiff_t>(dims_);
  }
  [[nodiscard]] const double* candidate(Eigen::Index j) const {
    return C_.data() + static_cast<std::ptrdiff_t>(j) * static_cast<std::ptrdiff_t>(dims_);
  }
  [[nodiscard]] double k(const double* a, const double* b) const { return kernel_(a, b); }

  void reserve(std::size_t n) {
    if (n <= capacity_ && X_.size() >= n * dims_) return;
    std::size_t cap = std::max<std::size_t>(64, capacity_);
    while (cap < n) cap *= 2;
    X_.resize(cap * dims_);
    y_.conservativeResize(static_cast<Eigen::Index>(cap));
    z_.conservativeResize(static_cast<Eigen::Index>(cap));
    Eigen::MatrixXd L =
        Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(cap), static_cast<Eigen::Index>(cap));
    const auto old = static_cast<Eigen::Index>(std::min(capacity_, n_));
    if (old > 0) L.topLeftCorner(old, old) = L_.topLeftCorner(old, old);
    L_ = std::move(L);
    V_.conservativeResize(static_cast<Eigen::Index>(cap), static_cast<Eigen::Index>(candidates_));
    capacity_ = cap;
  }

  void set_scale(std::span<const Trial> history) {
    log_ = options_.log_objective;
    std::size_t valid = 0;
    for (const auto& t : history) {
      if (!t.measurement.ok() || !std::isfinite(t.measurement.value)) continue;
      ++valid;
      if (t.measurement.value <= 0) log_ = false;
    }
    offset_ = 0;
    spread_ = 1;
    worst_ = 0;
    if (valid == 0) return;
    double sum = 0;
    double sum2 = 0;
    double hi = -std::numeric_limits<double>::infinity();
    for (const auto& t : history) {
      if (!t.measurement.ok() || !std::isfinite(t.measurement.value)) continue;
      const double v = log_ ? std::log(t.measurement.value) : t.measurement.value;
      sum += v;
      sum2 += v * v;
      hi = std::max(hi, v);
    }
    offset_ = sum / static_cast<double>(valid);
    const double var = sum2 / static_cast<double>(valid) - offset_ * offset_;
    spread_ = var > 1e-24 ? std::sqrt(var) : 1.0;
    worst_ = (hi - offset_) / spread_;
  }

  // Log marginal likelihood with the signal variance profiled out; -inf if not factorisable.
  [[nodiscard]] double log_likelihood(const Kernel& kern, double noise,
                                      std::span<const Eigen::Index> subset) const {
    const auto n = static_cast<Eigen::Index>(subset.size());
    Eigen::MatrixXd K(n, n);
    Eigen::VectorXd a(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double* xi = row(subset[static_cast<std::size_t>(i)]);
      for (Eigen::Index j = 0; j < i; ++j)
        K(i, j) = kern(xi, row(subset[static_cast<std::size_t>(j)]));
      K(i, i) = 1.0 + noise;
      a(i) = y_(subset[static_cast<std::size_t>(i)]);
    }
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
    llt.matrixL().solveInPlace(a);
    const double q = std::max(a.squaredNorm() / static_cast<double>(n), 1e-12);
    const double logdet = llt.matrixLLT().diagonal().array().log().sum();
    return -0.5 * static_cast<double>(n) * std::log(q) - logdet;
  }

  void optimise_hyperparameters() {
    if (kernel_.length_scales.size() != dims_) {
      kernel_.length_scales.assign(dims_, 0.35);
      noise_ = 1e-4;
    }
    if (n_ < 3) return;
    std::vector<Eigen::Index> subset;
    const std::size_t m = std::min(n_, std::max<std::size_t>(options_.hyper_max_points, 3));
    for (std::size_t i = 0; i < m; ++i) {
      subset.push_back(static_cast<Eigen::Index>(i * n_ / m));
    }
    const double mu = options_.length_prior_mean + 0.5 * std::log(static_cast<double>(dims_));
    const double sd = options_.length_prior_sd;
    // The log prior of the length scales (up to a constant; 0 without a prior).
    const auto log_prior = [&](const Kernel& kern) {
      if (sd <= 0) return 0.0;
      double lp = 0;
      for (const double l : kern.length_scales) {
        const double u = (std::log(l) - mu) / sd;
        lp -= 0.5 * u * u + std::log(l);
      }
      return lp;
    };
    Kernel best = kernel_;
    double best_noise = noise_;
    double best_ll = log_likelihood(best, best_noise, subset) + log_prior(best);
    auto consider = [&](const Kernel& kern, double noise) {
      const double ll = log_likelihood(kern, noise, subset) + log_prior(kern);
      if (ll > best_ll + 1e-9) {
        best_ll = ll;
        best = kern;
        best_noise = noise;
      }
    };
    Kernel trial = kernel_;
    for (const double l : options_.length_grid) {
      trial.length_scales.assign(dims_, l);
      consider(trial, best_noise);
    }
    for (const double noise : options_.noise_grid) consider(best, noise);
    for (std::size_t sweep = 0; sweep < options_.ard_sweeps; ++sweep) {
      for (std::size_t d = 0; d < dims_; ++d) {
        for (const double f : {0.5, 2.0, 4.0}) {
          trial = best;
          trial.length_scales[d] =
              std::clamp(best.length_scales[d] * f, options_.min_length, options_.max_length);
          consider(trial, best_noise);
        }
      }
    }
    kernel_ = std::move(best);
    noise_ = best_noise;
  }

  // Cholesky of K + noise I (+ jitter, retried), then z = L^-1 y and the candidates' cross terms.
  void factorise() {
    const auto n = static_cast<Eigen::Index>(n_);
    signal_ = 1.0;
    if (n == 0) {
      fill_cross(0);
      return;
    }
    Eigen::MatrixXd K(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < i; ++j) K(i, j) = k(row(i), row(j));
      K(i, i) = 1.0 + noise_;
    }
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    double jitter = options_.jitter;
    for (std::size_t r = 0; llt.info() != Eigen::Success && r < options_.jitter_retries; ++r) {
      K.diagonal().array() += jitter;
      noise_ += jitter;
      jitter *= 10;
      llt.compute(K);
    }
    L_.topLeftCorner(n, n) = llt.matrixL();
    z_.head(n) = y_.head(n);
    L_.topLeftCorner(n, n).template triangularView<Eigen::Lower>().solveInPlace(z_.head(n));
    signal_ = std::max(z_.head(n).squaredNorm() / static_cast<double>(n), 1e-6);
    fill_cross(0);
  }

  // V(:, first..) = L^-1 K(X, C(first..)).
  void fill_cross(std::size_t first) {
    const auto n = static_cast<Eigen::Index>(n_);
    const auto m = static_cast<Eigen::Index>(candidates_);
    const auto f = static_cast<Eigen::Index>(first);
    sum_mean_.conservativeResize(m);
    sum_sq_.conservativeResize(m);
    if (m <= f) return;
    if (n == 0) {
      sum_mean_.tail(m - f).setZero();
      sum_sq_.tail(m - f).setZero();
      return;
    }
    auto block = V_.block(0, f, n, m - f);
    for (Eigen::Index j = f; j < m; ++j) {
      for (Eigen::Index i = 0; i < n; ++i) V_(i, j) = k(row(i), candidate(j));
    }
    L_.topLeftCorner(n, n).template triangularView<Eigen::Lower>().solveInPlace(block);
    sum_mean_.tail(m - f).noalias() = block.transpose() * z_.head(n);
    sum_sq_.tail(m - f) = block.colwise().squaredNorm().transpose();
  }

  GaussianProcessOptions options_;
  Kernel kernel_;
  double noise_ = 1e-4;
  double signal_ = 1.0;
  SpaceView view_;
  std::size_t dims_ = 0;
  std::size_t n_ = 0;
  std::size_t capacity_ = 0;
  std::vector<double> X_;  // n x dims, row-major
  Eigen::VectorXd y_;      // normalised values
  Eigen::VectorXd z_;      // L^-1 y
  Eigen::MatrixXd L_;      // Cholesky factor of K + noise I (lower, capacity x capacity)
  std::vector<double> C_;  // candidates, m x dims, row-major
  std::size_t candidates_ = 0;
  Eigen::MatrixXd V_;         // L^-1 K(X, C): capacity x m
  Eigen::VectorXd sum_mean_;  // V^T z: the candidates' posterior means
  Eigen::VectorXd sum_sq_;    // column sums of V^2: the variance explained by the data
  bool log_ = true;
  double offset_ = 0;
  double spread_ = 1;
  double worst_ = 0;
};

static_assert(cost_model<GaussianProcess<>>);

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_GAUSSIAN_PROCESS_HPP
