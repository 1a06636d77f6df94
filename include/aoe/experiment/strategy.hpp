// A search policy in an experiment: a name and a way to make a fresh policy for each
// repetition. Ours by name (`named`), a user's own by type or factory (`policy`), side by side
// in one experiment (docs/research.md#your-own-policy).
#ifndef AOE_EXPERIMENT_STRATEGY_HPP
#define AOE_EXPERIMENT_STRATEGY_HPP

#include "aoe/core/error.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/search/by_name.hpp"
#include "aoe/tuner/concepts.hpp"

#include <concepts>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace aoe::experiment {

/// A strategy of an experiment. `make` is called once per repetition, possibly from several
/// threads at once, and returns a policy that has not started; its `start` gets the
/// repetition's seed. The `SearchStart` holds the configurations to measure first
/// (`Settings::start_from_default`, `Settings::transfer`): a policy may take them (ours that
/// have an `initial` option do) or ignore them (grid and random search do). What `make` throws
/// stops the experiment with an error naming the strategy, the input and the repetition.
struct Strategy {
  std::string name;  ///< in the JSON, the table and the plot
  std::function<AnySearch(const SearchStart&)> make;
};

/// One of our policies by name (`search_names()`), made by `make_search` for each repetition.
/// Errors: an unknown name (`invalid_argument`), a policy this build lacks (`unsupported`).
/// (A template, as `make_search` is, so that including this header instantiates no policy
/// until it is called.)
template <class = void>
[[nodiscard]] Result<Strategy> named(std::string_view name) {
  if (auto made = make_search<>(name); !made) return made.error();
  std::string n(name);
  return Strategy{n, [n](const SearchStart& start) {
                    auto made = make_search<>(n, start);
                    if (!made) throw std::invalid_argument("--strategy: " + made.error().message);
                    return std::move(*made);
                  }};
}

/// Each of `names` by `named`; the first unknown name is the error.
template <class = void>
[[nodiscard]] Result<std::vector<Strategy>> named(std::span<const std::string> names) {
  std::vector<Strategy> out;
  for (const auto& n : names) {
    auto s = named<>(std::string_view(n));
    if (!s) return s.error();
    out.push_back(std::move(*s));
  }
  return out;
}

/// A user's policy type, default-constructed for each repetition:
/// `aoe::experiment::policy<HillClimbing>("hill-climbing")`.
template <class S>
  requires search_policy<S> && std::default_initializable<S>
[[nodiscard]] Strategy policy(std::string name) {
  return Strategy{std::move(name), [](const SearchStart& /*start*/) { return AnySearch(S{}); }};
}

/// A user's policy made by `make` for each repetition: `make(start)` or `make()` returns a
/// `search_policy` (`start` holds the configurations to measure first, as for `Strategy`).
/// `make` must be safe to call from several threads at once.
template <class F>
  requires std::invocable<const F&, const SearchStart&> || std::invocable<const F&>
[[nodiscard]] Strategy policy(std::string name, F make) {
  return Strategy{std::move(name), [make = std::move(make)](const SearchStart& start) {
                    if constexpr (std::invocable<const F&, const SearchStart&>) {
                      using Made = std::remove_cvref_t<decltype(make(start))>;
                      static_assert(search_policy<Made>,
                                    "aoe::experiment::policy: the factory must return a "
                                    "search_policy (docs/concepts.md#search_policy)");
                      return AnySearch(make(start));
                    } else {
                      using Made = std::remove_cvref_t<decltype(make())>;
                      static_assert(search_policy<Made>,
                                    "aoe::experiment::policy: the factory must return a "
                                    "search_policy (docs/concepts.md#search_policy)");
                      return AnySearch(make());
                    }
                  }};
}

}  // namespace aoe::experiment

#endif  // AOE_EXPERIMENT_STRATEGY_HPP
