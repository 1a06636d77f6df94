// Bookkeeping the stochastic search policies share: which configurations were proposed, how to
// draw a fresh one, and how a failed measurement is scored.
#ifndef AOE_SEARCH_DETAIL_VISITED_HPP
#define AOE_SEARCH_DETAIL_VISITED_HPP

#include "aoe/core/random.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/trial.hpp"

#include <cstddef>
#include <limits>
#include <optional>
#include <unordered_set>
#include <vector>

namespace aoe::detail {

/// The configurations a policy has proposed, with draws of configurations it has not.
class Visited {
 public:
  /// Spaces with at most this many raw points are enumerated once sampling keeps hitting known
  /// points, so that a policy exhausts a small space instead of giving up early.
  static constexpr double enumerate_raw = 2'000'000;

  void clear() {
    seen_.clear();
    exhausted_ = false;
  }
  [[nodiscard]] bool contains(const Configuration& c) const { return seen_.contains(c); }
  /// Marks c as proposed; false if it already was.
  bool insert(const Configuration& c) { return seen_.insert(c).second; }
  /// Forgets c (a candidate that was drawn but never proposed).
  void erase(const Configuration& c) {
    if (seen_.erase(c) > 0) exhausted_ = false;
  }
  [[nodiscard]] std::size_t size() const noexcept { return seen_.size(); }

  /// A valid configuration not proposed yet: rejection sampling first, then (small spaces) a
  /// uniform pick among the unvisited points of an enumeration. Nullopt when none is left.
  std::optional<Configuration> fresh(const Space& space, Rng& rng, std::size_t tries = 64) {
    if (exhausted_) return std::nullopt;
    for (std::size_t t = 0; t < tries; ++t) {
      auto c = space.sample(rng, 64, 100'000);
      if (!c) break;
      if (!contains(*c)) return c;
    }
    if (space.raw_size() > enumerate_raw) {
      for (std::size_t t = 0; t < 16 * tries; ++t) {
        auto c = space.sample(rng);
        if (c && !contains(*c)) return c;
      }
      return std::nullopt;
    }
    std::vector<Configuration> left;
    space.for_each_valid([&](const Configuration& c) {
      if (!contains(c)) left.push_back(c);
    });
    if (left.empty()) {
      exhausted_ = true;
      return std::nullopt;
    }
    return left[rng.below(left.size())];
  }

  /// An unvisited valid neighbour of c: random moves first, then the full list.
  std::optional<Configuration> fresh_neighbour(const Space& space, const Configuration& c,
                                               Neighbourhood kind, Rng& rng,
                                               std::size_t tries = 16) const {
    for (std::size_t t = 0; t < tries; ++t) {
      auto n = space.random_neighbour(c, kind, rng, 8);
      if (!n) return std::nullopt;
      if (!contains(*n)) return n;
    }
    auto all = space.neighbours(c, kind);
    std::vector<Configuration> left;
    for (auto& n : all) {
      if (!contains(n)) left.push_back(std::move(n));
    }
    if (left.empty()) return std::nullopt;
    return left[rng.below(left.size())];
  }

 private:
  std::unordered_set<Configuration, ConfigurationHash> seen_;
  bool exhausted_ = false;
};

/// The value a policy minimises for a trial: the measured value when it is correct, +infinity
/// for a failure (worse than every valid value, as Kernel Tuner's `sys.float_info.max`).
[[nodiscard]] inline double score(const Trial& t) noexcept {
  return t.measurement.ok() ? t.measurement.value : std::numeric_limits<double>::infinity();
}

}  // namespace aoe::detail

#endif  // AOE_SEARCH_DETAIL_VISITED_HPP
