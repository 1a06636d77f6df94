// Search policies by name, for tools that choose one at run time (`aoe --search`, `aoe-bench`).
#ifndef AOE_SEARCH_BY_NAME_HPP
#define AOE_SEARCH_BY_NAME_HPP

#include "aoe/core/error.hpp"
#include "aoe/costmodel/analytic_model.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/search/bayesian/bayesian.hpp"
#include "aoe/search/ensemble.hpp"
#include "aoe/search/evolutionary.hpp"
#include "aoe/search/grid_search.hpp"
#include "aoe/search/phases.hpp"
#include "aoe/search/prescreen.hpp"
#include "aoe/search/random_search.hpp"
#include "aoe/search/search_names.hpp"
#include "aoe/search/simulated_annealing.hpp"
#include "aoe/search/transfer_data.hpp"
#include "aoe/space/configuration.hpp"
#if defined(AOE_WITH_XGBOOST)  // linked with aoe::xgboost (cmake/AoeXGBoost.cmake)
#include "aoe/search/xgboost/xgboost_model.hpp"
#include "aoe/search/xgboost/xgboost_search.hpp"
#endif

#include <array>
#include <memory>
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
  /// For the learned cost model ("xgboost", "evolutionary-xgboost"): the features of the
  /// problem tuned (operator, SoC) and the trials of problems tuned before it
  /// (docs/search.md#transfer). The other policies ignore them.
  std::vector<Feature> context{};
  std::shared_ptr<const TransferData> prior{};
  /// For "analytic": the analytic cost model of the operator tuned (costmodel/analytic_model.hpp),
  /// when the problem is an Ascend operator with a known SoC. The other policies ignore it.
  std::optional<AnalyticCostModel> analytic{};
};

/// Evaluations of the first phase of "annealing-evolutionary".
inline constexpr std::size_t annealing_phase = 48;

/// "annealing-evolutionary": simulated annealing from `initial` for its first
/// `annealing_phase` evaluations, then a genetic search (population 24) whose first generation
/// is the best of what annealing measured (search/phases.hpp).
[[nodiscard]] inline Phases annealing_evolutionary(std::vector<Configuration> initial) {
  SimulatedAnnealingOptions a;
  a.initial = std::move(initial);
  EvolutionaryOptions e;
  e.population = 24;
  std::vector<Phase> phases;
  phases.push_back({AnySearch(SimulatedAnnealing<>(std::move(a))), annealing_phase});
  phases.push_back({AnySearch(Evolutionary<>(std::move(e)))});
  return Phases(std::move(phases), "annealing-evolutionary");
}

/// Evaluations of the pre-screening phase of "analytic".
inline constexpr std::size_t prescreen_phase = 48;

/// "analytic": with an analytic cost model, `PreScreen` (the given first points, then the model's
/// best of a pool of 2048, then the model's best neighbours of the best measured) for its first
/// `prescreen_phase` evaluations, then a genetic search (population 24) whose offspring the
/// model pre-screens (4 bred per proposal) and whose first generation is the best measured.
/// Without a model (a space that is not an Ascend operator's: GDAT, SGAT, OpenCL, recorded
/// spaces) it runs as "annealing-evolutionary" does, under this name.
[[nodiscard]] inline Phases analytic_search(std::vector<Configuration> initial,
                                            const std::optional<AnalyticCostModel>& model) {
  EvolutionaryOptions e;
  e.population = 24;
  std::vector<Phase> phases;
  if (!model) {
    SimulatedAnnealingOptions a;
    a.initial = std::move(initial);
    phases.push_back({AnySearch(SimulatedAnnealing<>(std::move(a))), annealing_phase});
    phases.push_back({AnySearch(Evolutionary<>(std::move(e)))});
    return Phases(std::move(phases), "analytic");
  }
  PreScreenOptions p;
  p.initial = std::move(initial);
  e.screening = 4;
  phases.push_back(
      {AnySearch(PreScreen<AnalyticCostModel>(std::move(p), *model)), prescreen_phase});
  phases.push_back({AnySearch(Evolutionary<AnalyticCostModel>(std::move(e), *model))});
  return Phases(std::move(phases), "analytic");
}

/// A search policy, with its default options, by name: one of `search_names()` — "grid"
/// (GridSearch in the `spread` order), "random" (RandomSearch), "annealing"
/// (SimulatedAnnealing<>), "evolutionary" (Evolutionary<>), "bayesian" (Bayesian<>),
/// "ensemble" (Ensemble over annealing, evolutionary and bayesian), and with aoe::xgboost
/// "xgboost" (XGBoostSearch: the learned cost model as surrogate) and "evolutionary-xgboost"
/// (Evolutionary<XGBoostModel>: offspring pre-screened by it), "annealing-evolutionary"
/// (`annealing_evolutionary`) and "analytic" (`analytic_search`), started as `start` says. An
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
  if (name == "annealing-evolutionary") return AnySearch(annealing_evolutionary(start.initial));
  if (name == "analytic") return AnySearch(analytic_search(start.initial, start.analytic));
  if (name == "ensemble") {
    EnsembleOptions o;
    o.initial = start.initial;
    return AnySearch(Ensemble(Ensemble::default_members(), std::move(o)));
  }
#if defined(AOE_WITH_XGBOOST)
  if (name == "xgboost") {
    XGBoostSearchOptions o;
    o.initial = start.initial;
    o.context = start.context;
    o.prior = start.prior;
    return AnySearch(XGBoostSearch(std::move(o)));
  }
  if (name == "evolutionary-xgboost") {
    EvolutionaryOptions o;
    o.initial = start.initial;
    o.screening = 8;
    return AnySearch(
        Evolutionary<XGBoostModel>(std::move(o), XGBoostModel({}, start.context, start.prior)));
  }
#else
  if (name == "xgboost" || name == "evolutionary-xgboost") {
    return make_error(Errc::unsupported, "search policy '" + std::string(name) +
                                             "' needs the XGBoost cost model (aoe::xgboost), "
                                             "which this build does not have (Debian: "
                                             "libxgboost-dev, then reconfigure)");
  }
#endif
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
