// The exact optimum of the gradient split under the iteration model, by dynamic programming.
//
// Let f(k, j) be the earliest end of the last all-reduce over all splits of the first j
// gradients (indices 0..j−1) into exactly k segments, and C(i, j) the all-reduce time of
// gradients i..j−1. Then
//     f(1, j) = r_{j−1} + C(0, j)
//     f(k, j) = min over k−1 <= i < j of  max(r_{j−1}, f(k−1, i)) + C(i, j)
// and the optimum is T* = F + max(B, min over k <= K of f(k, n)).
//
// Why the recurrence is exact. Fix a split of 0..j−1 into k segments whose last segment is
// i..j−1. The model (iteration_model.hpp) makes its last all-reduce end at
// E = max(r_{j−1}, E') + C(i, j), where E' is the end of the previous all-reduce, which depends
// only on how 0..i−1 was split into k−1 segments. The map x ↦ max(r_{j−1}, x) + C(i, j) is
// non-decreasing, so over all splits with this last segment, E is smallest when E' is:
// E' = f(k−1, i). Taking the minimum over every possible last segment i..j−1 covers every split
// of 0..j−1 into k segments, which gives f(k, j) (induction on k; the base case has no previous
// all-reduce, E_0 = 0 <= r). The objective F + max(B, x) is non-decreasing in x as well, so the
// best of f(1, n) .. f(K, n) gives T*. Nothing here uses the form of C: the result holds for any
// all-reduce cost of a segment. Cost: O(K n²) evaluations of C (n = 160, K = 8: 0.2 million).
// tests/jobs/gdat_optimal_split_test.cpp checks it against brute force.
#ifndef AOE_JOBS_GDAT_OPTIMAL_SPLIT_HPP
#define AOE_JOBS_GDAT_OPTIMAL_SPLIT_HPP

#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace aoe::gdat {

/// The optimum split and its iteration time.
struct OptimalSplit {
  SplitStrategy split;
  double seconds = 0;  ///< T* (the iteration time, forward included)
};

/// The split with the least iteration time among all splits into 1..max_segments segments
/// (clamped to 1..gradients); on ties, the fewest segments, then the earliest cuts.
/// Precondition: the model has at least one gradient.
[[nodiscard]] inline OptimalSplit optimal_split(const IterationModel& model,
                                                std::size_t max_segments = max_split_segments) {
  const std::size_t n = model.gradients();
  AOE_ASSERT(n > 0, "a model with gradients");
  const std::size_t kmax = std::clamp<std::size_t>(max_segments, 1, n);
  constexpr double inf = std::numeric_limits<double>::infinity();
  // f[k][j], k = 1..kmax, j = 0..n; from[k][j] = i, the start of the last segment.
  std::vector<std::vector<double>> f(kmax + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<std::size_t>> from(kmax + 1, std::vector<std::size_t>(n + 1, 0));
  for (std::size_t j = 1; j <= n; ++j)
    f[1][j] = model.ready(j - 1) + model.allreduce_seconds(0, j - 1);
  for (std::size_t k = 2; k <= kmax; ++k) {
    for (std::size_t j = k; j <= n; ++j) {
      const double r = model.ready(j - 1);
      double best = inf;
      std::size_t arg = k - 1;
      for (std::size_t i = k - 1; i < j; ++i) {
        const double e = std::max(r, f[k - 1][i]) + model.allreduce_seconds(i, j - 1);
        if (e < best) {
          best = e;
          arg = i;
        }
      }
      f[k][j] = best;
      from[k][j] = arg;
    }
  }
  std::size_t best_k = 1;
  double best = model.iteration_seconds(f[1][n]);
  for (std::size_t k = 2; k <= kmax; ++k) {
    const double t = model.iteration_seconds(f[k][n]);
    if (t < best) {
      best = t;
      best_k = k;
    }
  }
  OptimalSplit out;
  out.seconds = best;
  std::vector<std::size_t> ends;
  std::size_t j = n;
  for (std::size_t k = best_k; k >= 1; --k) {
    ends.push_back(j - 1);
    j = k == 1 ? 0 : from[k][j];
  }
  std::reverse(ends.begin(), ends.end());
  out.split.ends = std::move(ends);
  return out;
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_OPTIMAL_SPLIT_HPP
