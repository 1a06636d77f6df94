// Where configurations fail: a kernel classifier of feasibility next to Bayesian search's
// objective model, so that it stops proposing where the space fails to compile or run.
#ifndef AOE_SEARCH_BAYESIAN_FEASIBILITY_HPP
#define AOE_SEARCH_BAYESIAN_FEASIBILITY_HPP

#include <Eigen/Core>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <span>
#include <vector>

namespace aoe {

/// Probability that a candidate measures without failing, from the observations near it: a
/// kernel-weighted (Nadaraya-Watson) vote of the observed successes and failures, with a Beta
/// prior centred on the overall success rate, `prior_weight` observations strong:
///   p(x) = (w r + sum_i k(x, x_i) s_i) / (w + sum_i k(x, x_i)),  s_i = 1 if i succeeded.
/// The kernel is the objective model's (its length scales say which parameters matter), so the
/// classifier needs no fitting of its own. BaCO (Hellsten et al., ASPLOS 2024) models
/// feasibility with a separate classifier for the same purpose. The sums over a fixed candidate
/// set are kept up to date in O(m) per observation; only the `max_points` most recent
/// observations enter a recomputation (when the candidates or the kernel change).
class KernelFeasibility {
 public:
  double prior_weight = 1.0;
  std::size_t max_points = 1024;

  void clear() {
    points_.clear();
    labels_.clear();
    successes_ = 0;
    total_ = 0;
    failures_ = 0;
    dims_ = 0;
    wins_.resize(0);
    weights_.resize(0);
  }

  /// Observations seen so far, and how many of them failed.
  [[nodiscard]] std::size_t observations() const noexcept { return total_; }
  [[nodiscard]] std::size_t failures() const noexcept { return failures_; }

  /// Records an observation at unit-cube point x; adds its weight to the candidates in `coords`
  /// (rows of `dims`), which must be the set of the last `set_candidates`.
  template <class Kernel>
  void add(const Kernel& kernel, std::span<const double> x, bool ok,
           std::span<const double> coords) {
    dims_ = x.size();
    ++total_;
    if (ok) {
      ++successes_;
    } else {
      ++failures_;
    }
    points_.insert(points_.end(), x.begin(), x.end());
    labels_.push_back(ok ? 1 : 0);
    if (labels_.size() > max_points) {
      points_.erase(points_.begin(), points_.begin() + static_cast<std::ptrdiff_t>(dims_));
      labels_.pop_front();
    }
    const auto m = static_cast<Eigen::Index>(weights_.size());
    for (Eigen::Index j = 0; j < m; ++j) {
      const double w = kernel(x.data(), coords.data() + static_cast<std::size_t>(j) * dims_);
      weights_(j) += w;
      if (ok) wins_(j) += w;
    }
  }

  /// Recomputes the sums for a new candidate set (or after the kernel changed).
  template <class Kernel>
  void set_candidates(const Kernel& kernel, std::span<const double> coords, std::size_t dims) {
    dims_ = dims;
    weights_.setZero(dims ? static_cast<Eigen::Index>(coords.size() / dims) : 0);
    wins_.setZero(weights_.size());
    extend(kernel, coords, 0);
  }

  /// Candidates appended to the set (`coords` is the whole set; rows from `first` are new).
  template <class Kernel>
  void add_candidates(const Kernel& kernel, std::span<const double> coords, std::size_t first) {
    const auto m = static_cast<Eigen::Index>(dims_ ? coords.size() / dims_ : 0);
    weights_.conservativeResize(m);
    wins_.conservativeResize(m);
    weights_.tail(m - static_cast<Eigen::Index>(first)).setZero();
    wins_.tail(m - static_cast<Eigen::Index>(first)).setZero();
    extend(kernel, coords, first);
  }

  /// p(feasible) of every candidate.
  void probabilities(Eigen::VectorXd& p) const {
    const double rate = total_ ? static_cast<double>(successes_) / static_cast<double>(total_) : 1;
    p = ((prior_weight * rate + wins_.array()) / (prior_weight + weights_.array())).matrix();
  }

 private:
  template <class Kernel>
  void extend(const Kernel& kernel, std::span<const double> coords, std::size_t first) {
    const std::size_t m = dims_ ? coords.size() / dims_ : 0;
    const std::size_t n = labels_.size();
    for (std::size_t j = first; j < m; ++j) {
      const double* c = coords.data() + j * dims_;
      double w = 0;
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double k = kernel(points_.data() + i * dims_, c);
        w += k;
        if (labels_[i]) s += k;
      }
      weights_(static_cast<Eigen::Index>(j)) = w;
      wins_(static_cast<Eigen::Index>(j)) = s;
    }
  }

  std::vector<double> points_;  // the most recent observations, row-major
  std::deque<char> labels_;     // 1: measured correctly
  std::size_t successes_ = 0;
  std::size_t failures_ = 0;
  std::size_t total_ = 0;
  std::size_t dims_ = 0;
  Eigen::VectorXd weights_;  // per candidate: sum of kernel weights
  Eigen::VectorXd wins_;     // per candidate: sum of the successes' weights
};

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_FEASIBILITY_HPP
