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
#include "aoe/space/configuration.hpp"

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

/// What `make_search` can set on the policies it builds, beyond their default options.
struct SearchStart {
  /// Configurations to measure first (the `initial` option of annealing, evolutionary,
  /// bayesian and ensemble), e.g. a runner's `default_configuration()`. Grid and random search
  /// ignore them: they are the baselines the others are compared with.
  std::vector<Configuration> initial{};
};

/// A search policy, with its default options, by name: one of `search_names()` — "grid"
/// (GridSearch in the `spread` order), "random" (RandomSearch), "annealing"
/// (SimulatedAnnealing<>), "evolutionary" (Evolutionary<>), "bayesian" (Bayesian<>),
/// "ensemble" (Ensemble over annealing, evolutionary and bayesian), started as `start` says. An
/// unknown name is `Errc::invalid_argument`, with a message that lists the valid names.
/// (A template only so that including this header instantiates no policy until it is called.)
template <class = void>
[[nodiscard]] Result<AnySearch> make_search(std::string_view name, const SearchStart& start) {
  if (name == "grid") return AnySearch(GridSearch({.order = GridOrder::spread}));
  if (name == "random") return AnySearch(RandomSearch{});
  if (name == "annealing") {
    SimulatedAnnealingOptions o;
    o.initial = start.initial;
    return AnySearch(SimulatedAnnealing<>(std::move(o)));
  }
  if (name == "evolutionary") {
    EvolutionaryOptions o;
    o.initial = start.initial;
    return AnySearch(Evolutionary<>(std::move(o)));
  }
  if (name == "bayesian") {
    BayesianOptions o;
    o.initial = start.initial;
    return AnySearch(Bayesian<>(std::move(o)));
  }
  if (name == "ensemble") {
    EnsembleOptions o;
    o.initial = start.initial;
    return AnySearch(Ensemble(Ensemble::default_members(), std::move(o)));
  }
  std::string valid;
  for (const auto n : search_names()) {
    if (!valid.empty()) valid += ", ";
    valid += n;
  }
  return make_error(Errc::invalid_argument,
                    "unknown search policy '" + std::string(name) + "': expected one of " + valid);
}

/// The policy by name with its default options.
template <class = void>
[[nodiscard]] Result<AnySearch> make_search(std::string_view name) {
  return make_search<>(name, SearchStart{});
}

}  // namespace aoe

#endif  // AOE_SEARCH_BY_NAME_HPP
