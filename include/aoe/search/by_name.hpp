// Search policies by name, for tools that choose one at run time (`aoe --search`, `aoe-bench`).
#ifndef AOE_SEARCH_BY_NAME_HPP
#define AOE_SEARCH_BY_NAME_HPP

#include "aoe/core/error.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/search/bayesian/bayesian.hpp"
#include "aoe/search/ensemble.hpp"
#include "aoe/search/evolutionary.hpp"
#include "aoe/search/grid_search.hpp"
#include "aoe/search/random_search.hpp"
#include "aoe/search/search_names.hpp"
#include "aoe/search/simulated_annealing.hpp"

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace aoe {

/// A search policy, with its default options, by name: one of `search_names()` — "grid"
/// (GridSearch), "random" (RandomSearch), "annealing" (SimulatedAnnealing<>), "evolutionary"
/// (Evolutionary<>), "bayesian" (Bayesian<>), "ensemble" (Ensemble over random, annealing,
/// evolutionary and bayesian). An unknown
/// name is `Errc::invalid_argument`, with a message that lists the valid names.
[[nodiscard]] inline Result<AnySearch> make_search(std::string_view name) {
  if (name == "grid") return AnySearch(GridSearch{});
  if (name == "random") return AnySearch(RandomSearch{});
  if (name == "annealing") return AnySearch(SimulatedAnnealing<>{});
  if (name == "evolutionary") return AnySearch(Evolutionary<>{});
  if (name == "bayesian") return AnySearch(Bayesian<>{});
  if (name == "ensemble") return AnySearch(Ensemble{});
  std::string valid;
  for (const auto n : search_names()) {
    if (!valid.empty()) valid += ", ";
    valid += n;
  }
  return make_error(Errc::invalid_argument,
                    "unknown search policy '" + std::string(name) + "': expected one of " + valid);
}

}  // namespace aoe

#endif  // AOE_SEARCH_BY_NAME_HPP
