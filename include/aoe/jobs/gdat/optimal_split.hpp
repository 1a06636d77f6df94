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
// all-reduce cost of a segment.
//
// Evaluating the recurrence as written costs O(K n²) (32k gradients: 22 s). The minimum over i is
// found in O(log n) instead, from the form of the cost: C(i, j) = c0 + c1 (P_j − P_i), affine in
// the bytes (P the prefix sums of the sizes; allreduce_cost.hpp). With G(i) = f(k−1, i) − c1 P_i,
// the candidate i costs max(r − c1 P_i, G(i)) + c0 + c1 P_j. Among the i with f(k−1, i) <= r the
// best is the largest such i, a; every other i with f(k−1, i) > r is worse than a when it is below
// a, so only G's minimum over a+1 .. j−1 competes. Two segment trees (over f(k−1, ·) and G) give a
// and that minimum; a third query gives the first i whose cost is within a rounding tolerance
// (64 ulps of the iteration time) of the minimum, and f(k, j) is that i's cost evaluated as the
// recurrence writes it. So the optimum and its split are the recurrence's; where two starts of
// the last segment cost the same up to rounding (profiles of identical layers), the earlier one
// is taken, whatever the rounding. Cost: O(K n log n) (10^6 gradients, K = 8: under 10 s).
// tests/jobs/gdat_cost_model_test.cpp checks it against brute force and against the O(K n²)
// recurrence, and counts the cost evaluations.
#ifndef AOE_JOBS_GDAT_OPTIMAL_SPLIT_HPP
#define AOE_JOBS_GDAT_OPTIMAL_SPLIT_HPP

#include "aoe/core/assert.hpp"
#include "aoe/jobs/gdat/allreduce_cost.hpp"
#include "aoe/jobs/gdat/iteration_model.hpp"
#include "aoe/jobs/gdat/split_strategy.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace aoe::gdat {

/// The optimum split and its iteration time.
struct OptimalSplit {
  SplitStrategy split;
  double seconds = 0;  ///< T* (the iteration time, forward included)
  /// All-reduce cost evaluations the programme made: at most 32 K n + n (the regression tests
  /// check it; the recurrence as written makes K n² / 2).
  std::size_t cost_evaluations = 0;
};

namespace detail {

/// A fixed array's minimum over a range, and the first or last position of a range whose value
/// is at most a bound, each in O(log n) (a segment tree).
class MinTree {
 public:
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  explicit MinTree(const std::vector<double>& values) : n_(values.size()) {
    while (leaves_ < n_) leaves_ *= 2;
    tree_.assign(2 * leaves_, std::numeric_limits<double>::infinity());
    std::copy(values.begin(), values.end(), tree_.begin() + static_cast<std::ptrdiff_t>(leaves_));
    for (std::size_t v = leaves_ - 1; v > 0; --v)
      tree_[v] = std::min(tree_[2 * v], tree_[2 * v + 1]);
  }

  /// min(values[lo..hi]). Precondition: lo <= hi < size.
  [[nodiscard]] double min(std::size_t lo, std::size_t hi) const {
    double m = std::numeric_limits<double>::infinity();
    for (std::size_t l = lo + leaves_, h = hi + leaves_ + 1; l < h; l /= 2, h /= 2) {
      if (l % 2 == 1) m = std::min(m, tree_[l++]);
      if (h % 2 == 1) m = std::min(m, tree_[--h]);
    }
    return m;
  }
  /// The first position in lo..hi whose value is <= bound, or npos.
  [[nodiscard]] std::size_t first_at_most(std::size_t lo, std::size_t hi, double bound) const {
    return find(1, 0, leaves_ - 1, lo, hi, bound, true);
  }
  /// The last position in lo..hi whose value is <= bound, or npos.
  [[nodiscard]] std::size_t last_at_most(std::size_t lo, std::size_t hi, double bound) const {
    return find(1, 0, leaves_ - 1, lo, hi, bound, false);
  }

 private:
  [[nodiscard]] std::size_t find(std::size_t v, std::size_t vl, std::size_t vr, std::size_t lo,
                                 std::size_t hi, double bound, bool first) const {
    if (vr < lo || vl > hi || !(tree_[v] <= bound)) return npos;
    if (vl == vr) return vl;
    const std::size_t mid = vl + (vr - vl) / 2;
    const std::size_t a = first ? find(2 * v, vl, mid, lo, hi, bound, first)
                                : find(2 * v + 1, mid + 1, vr, lo, hi, bound, first);
    if (a != npos) return a;
    return first ? find(2 * v + 1, mid + 1, vr, lo, hi, bound, first)
                 : find(2 * v, vl, mid, lo, hi, bound, first);
  }

  std::size_t n_;
  std::size_t leaves_ = 1;
  std::vector<double> tree_;
};

/// The dynamic programme of `optimal_split`, in pieces: the affine form of the cost, one cell
/// f(k, j) from the row f(k − 1, ·), and the split read back from the starts of the segments.
class SplitProgramme {
 public:
  static constexpr double inf = std::numeric_limits<double>::infinity();
  /// Candidates costed per cell at most: beyond them the costs are equal up to rounding
  /// (identical layers), and the first ones in index order are as good.
  static constexpr std::size_t max_ties = 32;

  SplitProgramme(const IterationModel& model, std::size_t kmax, std::size_t& cost_evaluations)
      : model_(model), n_(model.gradients()), evaluations_(cost_evaluations) {
    // The affine form of the cost, C = c0 + c1 * bytes, and the prefix sums P of the sizes.
    const double total = static_cast<double>(model.bytes(0, n_ - 1));
    const double c0 = gdat::allreduce_seconds(model.cluster(), 0.0);
    c1_ = (gdat::allreduce_seconds(model.cluster(), total) - c0) / total;
    prefix_.assign(n_ + 1, 0.0);
    for (std::size_t i = 1; i <= n_; ++i) prefix_[i] = static_cast<double>(model.bytes(0, i - 1));
    const double scale = model.ready(n_ - 1) + static_cast<double>(kmax + 1) *
                                                   gdat::allreduce_seconds(model.cluster(), total);
    tolerance_ = 64 * std::numeric_limits<double>::epsilon() * scale;
  }

  /// C(first, last), counted.
  [[nodiscard]] double cost(std::size_t first, std::size_t last) {
    ++evaluations_;
    return model_.allreduce_seconds(first, last);
  }

  /// f(1, ·): one segment 0..j−1 for each j (f(1, 0) = inf).
  [[nodiscard]] std::vector<double> first_row() {
    std::vector<double> row(n_ + 1, inf);
    for (std::size_t j = 1; j <= n_; ++j) row[j] = model_.ready(j - 1) + cost(0, j - 1);
    return row;
  }

  /// f(k, ·) into `cur` and the starts of the last segments into `from`, from `prev` =
  /// f(k − 1, ·).
  void next_row(std::size_t k, const std::vector<double>& prev, std::vector<double>& cur,
                std::vector<std::size_t>& from) {
    for (std::size_t i = 0; i <= n_; ++i) g_[i] = prev[i] - c1_ * prefix_[i];
    const MinTree f_tree(prev);
    const MinTree g_tree(g_);
    from.assign(n_ + 1, 0);
    std::fill(cur.begin(), cur.end(), inf);
    for (std::size_t j = k; j <= n_; ++j) {
      const auto [i, e] = cell(k, j, prev, f_tree, g_tree);
      cur[j] = e;
      from[j] = i;
    }
  }

 private:
  /// f(k, j) and the start of its last segment.
  [[nodiscard]] std::pair<std::size_t, double> cell(std::size_t k, std::size_t j,
                                                    const std::vector<double>& prev,
                                                    const MinTree& f_tree, const MinTree& g_tree) {
    const double r = model_.ready(j - 1);
    const std::size_t lo = k - 1;
    const std::size_t hi = j - 1;
    // a: the last i with f(k − 1, i) <= r; after it, every i has f(k − 1, i) > r.
    const std::size_t a = f_tree.last_at_most(lo, hi, r);
    double best = a == MinTree::npos ? inf : r - c1_ * prefix_[a];
    const std::size_t rest = a == MinTree::npos ? lo : a + 1;
    if (rest <= hi) best = std::min(best, g_tree.min(rest, hi));
    // The first i whose max(r − c1 P_i, G(i)) is within the tolerance of the best.
    const double bound = best + tolerance_;
    const std::size_t from_r = first_within(r, bound, lo, hi);
    // Each candidate within the tolerance, in index order, costed as the recurrence writes
    // it: the least cost wins, the first of equal costs, as in the recurrence.
    std::size_t i = a == MinTree::npos ? lo : a;
    double e = inf;
    std::size_t examined = 0;
    for (std::size_t c = from_r <= hi ? g_tree.first_at_most(from_r, hi, bound) : MinTree::npos;
         c != MinTree::npos && examined < max_ties;
         c = c < hi ? g_tree.first_at_most(c + 1, hi, bound) : MinTree::npos) {
      ++examined;
      const double ec = std::max(r, prev[c]) + cost(c, j - 1);
      if (ec < e) {
        e = ec;
        i = c;
      }
    }
    if (examined == 0) e = std::max(r, prev[i]) + cost(i, j - 1);  // not reached
    return {i, e};
  }

  /// The first i in lo..hi with r − c1 P_i <= bound (hi + 1 if none): r − c1 P_i falls with i.
  [[nodiscard]] std::size_t first_within(double r, double bound, std::size_t lo,
                                         std::size_t hi) const {
    std::size_t from_r = lo;
    for (std::size_t count = hi + 1 - lo; count > 0;) {
      const std::size_t step = count / 2;
      if (r - c1_ * prefix_[from_r + step] > bound) {
        from_r += step + 1;
        count -= step + 1;
      } else {
        count = step;
      }
    }
    return from_r;
  }

  const IterationModel& model_;
  std::size_t n_;
  std::size_t& evaluations_;
  double c1_ = 0;
  double tolerance_ = 0;
  std::vector<double> prefix_;
  std::vector<double> g_ = std::vector<double>(n_ + 1, inf);  ///< G(i) = f(k − 1, i) − c1 P_i
};

/// The cut positions of the split into `k` segments whose last segment ends at n − 1, read
/// back from the starts of the last segments (`from[k][j]`).
[[nodiscard]] inline std::vector<std::size_t> split_ends(
    const std::vector<std::vector<std::size_t>>& from, std::size_t k, std::size_t n) {
  std::vector<std::size_t> ends;
  std::size_t j = n;
  for (; k >= 1; --k) {
    ends.push_back(j - 1);
    j = k == 1 ? 0 : from[k][j];
  }
  std::reverse(ends.begin(), ends.end());
  return ends;
}

}  // namespace detail

/// The split with the least iteration time among all splits into 1..max_segments segments
/// (clamped to 1..gradients); on ties, the fewest segments, then the earliest cuts.
/// Precondition: the model has at least one gradient.
[[nodiscard]] inline OptimalSplit optimal_split(const IterationModel& model,
                                                std::size_t max_segments = max_split_segments) {
  const std::size_t n = model.gradients();
  AOE_ASSERT(n > 0, "a model with gradients");
  const std::size_t kmax = std::clamp<std::size_t>(max_segments, 1, n);
  OptimalSplit out;
  detail::SplitProgramme programme(model, kmax, out.cost_evaluations);
  // prev = f(k − 1, ·), cur = f(k, ·), j = 0..n; from[k][j] = i, the start of the last segment.
  std::vector<double> prev = programme.first_row();
  std::vector<double> cur(n + 1, detail::SplitProgramme::inf);
  std::vector<double> last_end(kmax + 1, detail::SplitProgramme::inf);  // f(k, n)
  std::vector<std::vector<std::size_t>> from(kmax + 1);
  last_end[1] = prev[n];
  for (std::size_t k = 2; k <= kmax; ++k) {
    programme.next_row(k, prev, cur, from[k]);
    last_end[k] = cur[n];
    std::swap(prev, cur);
  }
  std::size_t best_k = 1;
  double best = model.iteration_seconds(last_end[1]);
  for (std::size_t k = 2; k <= kmax; ++k) {
    const double t = model.iteration_seconds(last_end[k]);
    if (t < best) {
      best = t;
      best_k = k;
    }
  }
  out.seconds = best;
  out.split.ends = detail::split_ends(from, best_k, n);
  return out;
}

}  // namespace aoe::gdat

#endif  // AOE_JOBS_GDAT_OPTIMAL_SPLIT_HPP
