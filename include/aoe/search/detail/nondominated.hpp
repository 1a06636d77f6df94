// Private: NSGA-II's ranking of points of two objectives (time, energy) with a constraint:
// fast non-dominated sorting under constrained domination and crowding distances (Deb, Pratap,
// Agarwal and Meyarivan, "A fast and elitist multiobjective genetic algorithm: NSGA-II", IEEE
// TEC 6(2), 2002, sections III-A, III-B and IV).
#ifndef AOE_SEARCH_DETAIL_NONDOMINATED_HPP
#define AOE_SEARCH_DETAIL_NONDOMINATED_HPP

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

namespace aoe::detail {

/// A point to rank: its two objectives (infinity for a failed configuration) and how far it
/// breaks the constraint (0: feasible; a power cap's excess watts).
struct ObjectivePoint {
  double seconds = std::numeric_limits<double>::infinity();
  double joules = std::numeric_limits<double>::infinity();
  double violation = 0;
};

/// Constrained domination: a feasible point dominates an infeasible one; of two infeasible
/// points the smaller violation dominates; of two feasible ones, Pareto domination.
[[nodiscard]] inline bool constrained_dominates(const ObjectivePoint& a,
                                                const ObjectivePoint& b) noexcept {
  if (a.violation > 0 || b.violation > 0) {
    if (a.violation <= 0) return true;
    if (b.violation <= 0) return false;
    return a.violation < b.violation;
  }
  return a.seconds <= b.seconds && a.joules <= b.joules &&
         (a.seconds < b.seconds || a.joules < b.joules);
}

/// Each point's front (0: non-dominated) and crowding distance within its front (infinite at
/// a front's ends along either objective).
struct Ranking {
  std::vector<std::size_t> front;
  std::vector<double> crowding;

  /// Whether point `a` is preferred to `b`: a lower front, then a larger crowding distance.
  [[nodiscard]] bool better(std::size_t a, std::size_t b) const noexcept {
    if (front[a] != front[b]) return front[a] < front[b];
    return crowding[a] > crowding[b];
  }
};

/// Crowding distances of the points `members` (one front), written into `crowding`.
inline void crowding_distances(std::span<const ObjectivePoint> points,
                               std::span<const std::size_t> members,
                               std::vector<double>& crowding) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> order(members.begin(), members.end());
  for (const auto objective : {&ObjectivePoint::seconds, &ObjectivePoint::joules}) {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return points[a].*objective < points[b].*objective;
    });
    const double lo = points[order.front()].*objective, hi = points[order.back()].*objective;
    crowding[order.front()] = crowding[order.back()] = inf;
    if (!(hi > lo) || !std::isfinite(hi - lo)) continue;
    for (std::size_t i = 1; i + 1 < order.size(); ++i) {
      crowding[order[i]] +=
          (points[order[i + 1]].*objective - points[order[i - 1]].*objective) / (hi - lo);
    }
  }
}

/// NSGA-II's ranking of `points`: O(M N^2) fast non-dominated sorting, then crowding.
[[nodiscard]] inline Ranking rank_points(std::span<const ObjectivePoint> points) {
  const std::size_t n = points.size();
  Ranking r{std::vector<std::size_t>(n, 0), std::vector<double>(n, 0.0)};
  std::vector<std::vector<std::size_t>> dominated(n);
  std::vector<std::size_t> count(n, 0);
  std::vector<std::size_t> current;
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t q = 0; q < n; ++q) {
      if (p == q) continue;
      if (constrained_dominates(points[p], points[q])) {
        dominated[p].push_back(q);
      } else if (constrained_dominates(points[q], points[p])) {
        ++count[p];
      }
    }
    if (count[p] == 0) current.push_back(p);
  }
  for (std::size_t front = 0; !current.empty(); ++front) {
    crowding_distances(points, current, r.crowding);
    std::vector<std::size_t> next;
    for (const auto p : current) {
      r.front[p] = front;
      for (const auto q : dominated[p]) {
        if (--count[q] == 0) next.push_back(q);
      }
    }
    current = std::move(next);
  }
  return r;
}

}  // namespace aoe::detail

#endif  // AOE_SEARCH_DETAIL_NONDOMINATED_HPP
