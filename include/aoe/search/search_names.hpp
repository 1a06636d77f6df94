// The names of the built-in search policies, without the policies: for tools that validate a
// `--search` flag in a translation unit that does not build any policy (by_name.hpp does).
#ifndef AOE_SEARCH_SEARCH_NAMES_HPP
#define AOE_SEARCH_SEARCH_NAMES_HPP

#include <array>
#include <span>
#include <string_view>

namespace aoe {

namespace detail {
#if defined(AOE_WITH_XGBOOST)  // linked with aoe::xgboost: the learned cost model's policies
inline constexpr std::array<std::string_view, 10> search_names{"grid",
                                                               "random",
                                                               "annealing",
                                                               "evolutionary",
                                                               "bayesian",
                                                               "ensemble",
                                                               "xgboost",
                                                               "evolutionary-xgboost",
                                                               "annealing-evolutionary",
                                                               "analytic"};
#else
inline constexpr std::array<std::string_view, 8> search_names{"grid",
                                                              "random",
                                                              "annealing",
                                                              "evolutionary",
                                                              "bayesian",
                                                              "ensemble",
                                                              "annealing-evolutionary",
                                                              "analytic"};
#endif
}  // namespace detail

/// The names `make_search` (search/by_name.hpp) accepts, in the order tools list them.
[[nodiscard]] inline std::span<const std::string_view> search_names() noexcept {
  return detail::search_names;
}

}  // namespace aoe

#endif  // AOE_SEARCH_SEARCH_NAMES_HPP
