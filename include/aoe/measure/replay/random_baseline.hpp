// The exact expectation of random search without replacement on a fully known space: the
// baseline of the Willemsen et al. (FGCS 2024) methodology, computed from order statistics
// rather than sampled.
#ifndef AOE_MEASURE_REPLAY_RANDOM_BASELINE_HPP
#define AOE_MEASURE_REPLAY_RANDOM_BASELINE_HPP

#include "aoe/core/assert.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace aoe::replay {

/// Random search without replacement over a population of `population` configurations, of
/// which the valid ones have the (minimised) values given; the others failed and count as
/// evaluations that find nothing (the counting convention of Kernel Tuner's replays and of
/// ../shared/datasets: a failed configuration costs an evaluation).
///
/// With the valid values sorted ascending v_1 <= ... <= v_V and N the population, the minimum
/// of k draws has rank >= j with probability r_j(k) = C(N-j+1, k) / C(N, k) (all k draws among
/// the N-j+1 configurations ranked j or worse), so P(best = v_j) = r_j - r_{j+1} and
/// P(nothing valid) = r_{V+1}. r_{j+1} = r_j (N-j+1-k) / (N-j+1) makes each expectation O(V).
class RandomBaseline {
 public:
  RandomBaseline() = default;

  /// `valid_values` in any order; `population` >= valid_values.size().
  RandomBaseline(std::vector<double> valid_values, std::size_t population)
      : sorted_(std::move(valid_values)), population_(population) {
    AOE_ASSERT(population_ >= sorted_.size(), "RandomBaseline: population below the valid count");
    std::sort(sorted_.begin(), sorted_.end());
  }

  [[nodiscard]] std::size_t population() const noexcept { return population_; }
  [[nodiscard]] std::size_t valid() const noexcept { return sorted_.size(); }
  [[nodiscard]] const std::vector<double>& sorted_values() const noexcept { return sorted_; }
  [[nodiscard]] double optimum() const noexcept {
    return sorted_.empty() ? std::numeric_limits<double>::infinity() : sorted_.front();
  }
  [[nodiscard]] double worst() const noexcept {
    return sorted_.empty() ? std::numeric_limits<double>::infinity() : sorted_.back();
  }

  /// E[f(best of k draws)], with f(nothing valid found) = `if_none`. k is clamped to the
  /// population.
  template <class F>
  [[nodiscard]] double expect(std::size_t k, F f, double if_none) const {
    if (population_ == 0 || k == 0) return if_none;
    k = std::min(k, population_);
    const auto n = static_cast<double>(population_);
    const auto kd = static_cast<double>(k);
    double r = 1;  // r_1
    double sum = 0;
    for (std::size_t j = 1; j <= sorted_.size(); ++j) {
      const double left = n - static_cast<double>(j) + 1;  // N - j + 1
      const double next = left - kd <= 0 ? 0.0 : r * (left - kd) / left;
      sum += (r - next) * f(sorted_[j - 1]);
      r = next;
      if (r == 0) break;
    }
    return sum + r * if_none;
  }

  /// Expected best value after k draws; draws that found nothing valid count as the worst
  /// valid value (a finite penalty, the same one aoe-bench gives a policy's curve before its
  /// first valid measurement).
  [[nodiscard]] double expected_best(std::size_t k) const {
    return expect(
        k, [](double v) { return v; }, worst());
  }

  /// Expected fraction of the optimum, optimum / best (time objectives), after k draws; 0
  /// when nothing valid was found.
  [[nodiscard]] double expected_fraction(std::size_t k) const {
    const double opt = optimum();
    return expect(
        k, [opt](double v) { return v > 0 ? opt / v : 1.0; }, 0.0);
  }

  /// Position of a value among the valid values sorted best first: the number of valid values
  /// strictly better (so ties share the position of the first of them; 0 is the optimum). A
  /// value that found nothing (infinity, NaN) takes the worst valid value's position. The
  /// methodology averages positions, not values, over repetitions
  /// (autotuning_methodology: curves.py, get_indices_in_distribution).
  [[nodiscard]] double rank(double value) const noexcept {
    if (sorted_.empty()) return 0;
    if (!(value <= sorted_.back())) value = sorted_.back();
    return static_cast<double>(std::lower_bound(sorted_.begin(), sorted_.end(), value) -
                               sorted_.begin());
  }

  /// The valid value at a fractional position, linearly interpolated between neighbours and
  /// clamped to [0, valid() - 1]; the inverse of `rank` on the values of the space.
  [[nodiscard]] double value_at_rank(double position) const noexcept {
    if (sorted_.empty()) return std::numeric_limits<double>::infinity();
    const double last = static_cast<double>(sorted_.size() - 1);
    if (!(position > 0)) return sorted_.front();
    if (position >= last) return sorted_.back();
    const auto lo = static_cast<std::size_t>(position);
    const double w = position - static_cast<double>(lo);
    return w == 0 ? sorted_[lo] : sorted_[lo] * (1 - w) + sorted_[lo + 1] * w;
  }

  /// Expected `rank` of the best of k draws; draws that found nothing valid take the worst
  /// valid value's rank (the convention of `expected_best`). O(V).
  [[nodiscard]] double expected_rank(std::size_t k) const {
    const double none = rank(worst());
    if (population_ == 0 || k == 0 || sorted_.empty()) return none;
    k = std::min(k, population_);
    const auto n = static_cast<double>(population_);
    const auto kd = static_cast<double>(k);
    double r = 1;
    double sum = 0;
    std::size_t tie_start = 0;  // first position of the run of values equal to sorted_[j - 1]
    for (std::size_t j = 1; j <= sorted_.size(); ++j) {
      if (sorted_[j - 1] != sorted_[tie_start]) tie_start = j - 1;
      const double left = n - static_cast<double>(j) + 1;
      const double next = left - kd <= 0 ? 0.0 : r * (left - kd) / left;
      sum += (r - next) * static_cast<double>(tie_start);
      r = next;
      if (r == 0) break;
    }
    return sum + r * none;
  }

  /// Probability that the optimum (every configuration tied with it) is among k draws.
  [[nodiscard]] double probability_optimum(std::size_t k) const {
    const double opt = optimum();
    return expect(
        k, [opt](double v) { return v <= opt ? 1.0 : 0.0; }, 0.0);
  }

 private:
  std::vector<double> sorted_;
  std::size_t population_ = 0;
};

}  // namespace aoe::replay

#endif  // AOE_MEASURE_REPLAY_RANDOM_BASELINE_HPP
