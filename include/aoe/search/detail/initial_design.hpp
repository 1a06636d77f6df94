// The first configurations the model-based and local policies measure: the caller's own (for
// instance a runner's default configuration), then a Latin hypercube over the space's
// unit-cube encoding.
#ifndef AOE_SEARCH_DETAIL_INITIAL_DESIGN_HPP
#define AOE_SEARCH_DETAIL_INITIAL_DESIGN_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace aoe::detail {

/// The configurations a policy measures first: its `initial` option, then the tuner's warm
/// start (transfer's seeds, docs/transfer.md), each once.
[[nodiscard]] inline std::vector<Configuration> first_points(std::span<const Configuration> initial,
                                                             std::span<const Configuration> warm) {
  std::vector<Configuration> out(initial.begin(), initial.end());
  for (const auto& c : warm) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

/// Up to `n` distinct valid configurations not in `visited`: first those of `given` that are
/// valid (in order, repeats dropped), then a Latin hypercube sample (McKay, Beckman, Conover,
/// Technometrics 1979) of the encoding: each parameter's range is cut into as many strata as
/// points are still wanted and every stratum is used once, so that even a handful of points
/// covers every parameter's range, which independent uniform draws do not. A point that breaks
/// a constraint is moved to a random valid Hamming neighbour, else replaced by a uniform draw;
/// fewer than n are returned only when the space runs out. Marks what it returns as visited.
[[nodiscard]] inline std::vector<Configuration> initial_design(const Space& space,
                                                               std::span<const Configuration> given,
                                                               std::size_t n, Visited& visited,
                                                               Rng& rng) {
  std::vector<Configuration> out;
  for (const auto& c : given) {
    if (out.size() >= n) break;
    if (c.size() != space.dimensions() || !space.is_valid(c) || visited.contains(c)) continue;
    visited.insert(c);
    out.push_back(c);
  }
  const std::size_t want = n - out.size();
  const std::size_t dims = space.dimensions();
  if (want == 0 || dims == 0) return out;
  std::vector<std::vector<std::uint32_t>> strata(dims);
  for (auto& s : strata) {
    s.resize(want);
    std::iota(s.begin(), s.end(), std::uint32_t{0});
    for (std::size_t i = want; i > 1; --i) std::swap(s[i - 1], s[rng.below(i)]);
  }
  std::vector<double> x(dims);
  for (std::size_t i = 0; i < want; ++i) {
    for (std::size_t d = 0; d < dims; ++d) {
      x[d] = (static_cast<double>(strata[d][i]) + rng.uniform()) / static_cast<double>(want);
    }
    std::optional<Configuration> c = space.decode(x);
    if (!space.is_valid(*c) || visited.contains(*c)) {
      auto moved = space.random_neighbour(*c, Neighbourhood::hamming, rng, 32);
      c = moved && space.is_valid(*moved) && !visited.contains(*moved) ? std::move(moved)
                                                                       : visited.fresh(space, rng);
    }
    if (!c) break;
    visited.insert(*c);
    out.push_back(std::move(*c));
  }
  return out;
}

}  // namespace aoe::detail

#endif  // AOE_SEARCH_DETAIL_INITIAL_DESIGN_HPP
