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
#include "aoe/search/search_settings.hpp"
#include "aoe/search/simulated_annealing.hpp"
#include "aoe/search/transfer_data.hpp"
#include "aoe/space/configuration.hpp"
#if defined(AOE_WITH_XGBOOST)  // linked with aoe::xgboost (cmake/AoeXGBoost.cmake)
#include "aoe/search/xgboost/xgboost_model.hpp"
#include "aoe/search/xgboost/xgboost_search.hpp"
#endif

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
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

/// "evolutionary"'s options before the protocol tuned them (docs/research.md, "Tuned
/// defaults"): population 20, tournament 3, step_mutation 0.7. aoe's jobs keep them (OPAT's
/// own genetic search, the phases of "analytic" and "annealing-evolutionary", SGAT's and GDAT's
/// "evolutionary": `make_job_search`): their settings were measured on Ascend operators and
/// graphs, and the protocol's recorded GPU spaces say nothing about those.
[[nodiscard]] inline EvolutionaryOptions job_evolutionary_options() {
  EvolutionaryOptions o;
  o.population = 20;
  o.tournament = 3;
  o.step_mutation = 0.7;
  return o;
}

/// "annealing"'s options before the protocol tuned them: initial_temperature 0.1; the
/// annealing phase of "analytic" and "annealing-evolutionary" keeps it.
[[nodiscard]] inline SimulatedAnnealingOptions pre_protocol_annealing_options() {
  SimulatedAnnealingOptions o;
  o.initial_temperature = 0.1;
  return o;
}

/// Evaluations of the first phase of "annealing-evolutionary".
inline constexpr std::size_t annealing_phase = 48;

/// "annealing-evolutionary": simulated annealing from `initial` for its first
/// `annealing_phase` evaluations, then a genetic search (population 24) whose first generation
/// is the best of what annealing measured (search/phases.hpp).
[[nodiscard]] inline Phases annealing_evolutionary(std::vector<Configuration> initial) {
  SimulatedAnnealingOptions a = pre_protocol_annealing_options();
  a.initial = std::move(initial);
  EvolutionaryOptions e = job_evolutionary_options();
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
  EvolutionaryOptions e = job_evolutionary_options();
  e.population = 24;
  std::vector<Phase> phases;
  if (!model) {
    SimulatedAnnealingOptions a = pre_protocol_annealing_options();
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

/// What a spec may set on "annealing" (search_settings.hpp): SimulatedAnnealingOptions' fields of
/// the same names, in these ranges.
inline constexpr std::array<SettingField<SimulatedAnnealingOptions>, 6> annealing_settings{{
    {"initial_temperature", &SimulatedAnnealingOptions::initial_temperature, 1e-6, 1e6},
    {"long_jump", &SimulatedAnnealingOptions::long_jump, 0, 1},
    {"restart_after", &SimulatedAnnealingOptions::restart_after, 1},
    {"restart_from_best", &SimulatedAnnealingOptions::restart_from_best},
    {"initial_samples", &SimulatedAnnealingOptions::initial_samples, 1},
    {"restart_samples", &SimulatedAnnealingOptions::restart_samples, 1},
}};

/// What a spec may set on "evolutionary": EvolutionaryOptions' fields (the minimum of a range at
/// most its maximum, fewer elites than the population).
inline constexpr std::array<SettingField<EvolutionaryOptions>, 11> evolutionary_settings{{
    {"population", &EvolutionaryOptions::population, 2},
    {"max_trials", &EvolutionaryOptions::max_trials},
    {"crossover_min", &EvolutionaryOptions::crossover_min, 0, 1},
    {"crossover_max", &EvolutionaryOptions::crossover_max, 0, 1},
    {"mutation_min", &EvolutionaryOptions::mutation_min, 0, 1},
    {"mutation_max", &EvolutionaryOptions::mutation_max, 0, 1},
    {"elite", &EvolutionaryOptions::elite},
    {"tournament", &EvolutionaryOptions::tournament, 1},
    {"step_mutation", &EvolutionaryOptions::step_mutation, 0, 1},
    {"early_stop_generations", &EvolutionaryOptions::early_stop_generations},
    {"early_stop_tolerance", &EvolutionaryOptions::early_stop_tolerance},
}};

/// What a spec may set on "bayesian": BayesianOptions' fields (max_active at least
/// max_observations).
inline constexpr std::array<SettingField<BayesianOptions>, 14> bayesian_settings{{
    {"initial_samples", &BayesianOptions::initial_samples, 2},
    {"candidates", &BayesianOptions::candidates, 1},
    {"incumbents", &BayesianOptions::incumbents},
    {"local_candidates", &BayesianOptions::local_candidates},
    {"refit_growth", &BayesianOptions::refit_growth, 0.01, 100},
    {"max_observations", &BayesianOptions::max_observations, 10},
    {"max_active", &BayesianOptions::max_active, 10},
    {"feasibility", &BayesianOptions::feasibility},
    {"feasibility_threshold", &BayesianOptions::feasibility_threshold, 0, 1},
    {"failures_in_surrogate", &BayesianOptions::failures_in_surrogate},
    {"isotropic_every", &BayesianOptions::isotropic_every},
    {"isotropic_until", &BayesianOptions::isotropic_until},
    {"local_every", &BayesianOptions::local_every},
    {"local_radius", &BayesianOptions::local_radius, 1},
}};

/// What a spec may set on "ensemble": EnsembleOptions' fields (its members keep their defaults).
inline constexpr std::array<SettingField<EnsembleOptions>, 4> ensemble_settings{{
    {"exploration", &EnsembleOptions::exploration, 0, 1e6},
    {"window", &EnsembleOptions::window, 1},
    {"duplicate_tries", &EnsembleOptions::duplicate_tries, 1},
    {"share_trials", &EnsembleOptions::share_trials},
}};

namespace detail {

/// `O` on its defaults with `spec`'s settings applied through `fields`, or the first bad one.
template <class O, std::size_t N>
[[nodiscard]] Result<O> options_of(const SearchSpec& spec,
                                   const std::array<SettingField<O>, N>& fields) {
  O o;
  if (auto set = apply_settings<O>(o, spec.name, spec.settings, fields); !set) return set.error();
  return o;
}

/// The settings that must agree with each other: "" or why they do not.
[[nodiscard]] inline std::string disagreement(const EvolutionaryOptions& o) {
  if (o.crossover_min > o.crossover_max) return "crossover_min is above crossover_max";
  if (o.mutation_min > o.mutation_max) return "mutation_min is above mutation_max";
  if (o.elite >= o.population) return "elite must be below population";
  return "";
}
[[nodiscard]] inline std::string disagreement(const BayesianOptions& o) {
  return o.max_active < o.max_observations ? "max_active is below max_observations" : "";
}

/// "annealing", "evolutionary", "bayesian" and "ensemble" made from `spec` (the others: none).
template <class = void>
[[nodiscard]] std::optional<Result<AnySearch>> make_set_policy(const SearchSpec& spec,
                                                               const SearchStart& start) {
  const auto settled = [&](auto made, auto build) -> Result<AnySearch> {
    if (!made) return made.error();
    if constexpr (requires { disagreement(*made); }) {
      if (const std::string why = disagreement(*made); !why.empty()) {
        return make_error(Errc::invalid_argument,
                          "search policy '" + spec.name + "': the settings disagree: " + why);
      }
    }
    made->initial = start.initial;
    return build(std::move(*made));
  };
  const std::string_view name = spec.name;
  if (name == "annealing") {
    return settled(options_of(spec, annealing_settings),
                   [](auto o) { return AnySearch(SimulatedAnnealing<>(std::move(o))); });
  }
  if (name == "evolutionary") {
    return settled(options_of(spec, evolutionary_settings),
                   [](auto o) { return AnySearch(Evolutionary<>(std::move(o))); });
  }
  if (name == "bayesian") {
    return settled(options_of(spec, bayesian_settings),
                   [](auto o) { return AnySearch(Bayesian<>(std::move(o))); });
  }
  if (name == "ensemble") {
    return settled(options_of(spec, ensemble_settings), [](auto o) {
      return AnySearch(Ensemble(Ensemble::default_members(), std::move(o)));
    });
  }
  return std::nullopt;
}

}  // namespace detail

/// A search policy by its spec: its name, one of `search_names()`, and the settings applied on
/// its default options (the policies without a settings table take none). The names: "grid"
/// (GridSearch in the `spread` order), "random" (RandomSearch), "annealing"
/// (SimulatedAnnealing<>), "evolutionary" (Evolutionary<>), "bayesian" (Bayesian<>),
/// "ensemble" (Ensemble over annealing, evolutionary and bayesian), and with aoe::xgboost
/// "xgboost" (XGBoostSearch: the learned cost model as surrogate) and "evolutionary-xgboost"
/// (Evolutionary<XGBoostModel>: offspring pre-screened by it), "annealing-evolutionary"
/// (`annealing_evolutionary`) and "analytic" (`analytic_search`), started as `start` says. An
/// unknown name is `Errc::invalid_argument`, with a message that lists the valid names; so is a
/// setting the policy does not take.
/// (A template only so that including this header instantiates no policy until it is called.)
template <class = void>
[[nodiscard]] Result<AnySearch> make_search(const SearchSpec& spec, const SearchStart& start) {
  if (auto made = detail::make_set_policy<>(spec, start)) return std::move(*made);
  const std::string_view name = spec.name;
  const bool known =
      std::find(search_names().begin(), search_names().end(), name) != search_names().end() ||
      name == "xgboost" || name == "evolutionary-xgboost";
  if (known && !spec.settings.empty()) {
    return make_error(Errc::invalid_argument, "search policy '" + spec.name +
                                                  "' takes no settings (given '" +
                                                  spec.settings.front().key + "')");
  }
  if (name == "grid") return AnySearch(GridSearch({.order = GridOrder::spread}));
  if (name == "random") return AnySearch(RandomSearch{});
  if (name == "annealing-evolutionary") return AnySearch(annealing_evolutionary(start.initial));
  if (name == "analytic") return AnySearch(analytic_search(start.initial, start.analytic));
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

/// The policy of `text`, "NAME[:KEY=VALUE]..." (`parse_search_spec`): its default options with
/// the settings given applied, e.g. "bayesian:initial_samples=5:local_every=3". The settings of
/// "annealing", "evolutionary", "bayesian" and "ensemble" are the fields of their options
/// struct named in `annealing_settings` and the tables after it; the other policies take none.
/// Errors (`Errc::invalid_argument`): a malformed spec, an unknown name (listing the valid
/// ones), an unknown key (listing the valid ones with their defaults), a value of the wrong type
/// or out of range, settings that disagree (crossover_min above crossover_max).
template <class = void>
[[nodiscard]] Result<AnySearch> make_search(std::string_view text, const SearchStart& start) {
  auto spec = parse_search_spec(text);
  if (!spec) return spec.error();
  return make_search<>(*spec, start);
}

/// The policy of `text` (a name or a spec) with no start.
template <class = void>
[[nodiscard]] Result<AnySearch> make_search(std::string_view text) {
  return make_search<>(text, SearchStart{});
}

/// The policy aoe's subgraph and gradient jobs (SGAT, GDAT) tune with for `text` (a name or a
/// spec): `make_search(text, start)`, except that "evolutionary" starts from
/// `job_evolutionary_options()`, the spec's settings applied on them.
template <class = void>
[[nodiscard]] Result<AnySearch> make_job_search(std::string_view text,
                                                const SearchStart& start = {}) {
  auto spec = parse_search_spec(text);
  if (!spec) return spec.error();
  if (spec->name != "evolutionary") return make_search<>(*spec, start);
  EvolutionaryOptions o = job_evolutionary_options();
  if (auto set =
          apply_settings<EvolutionaryOptions>(o, spec->name, spec->settings, evolutionary_settings);
      !set) {
    return set.error();
  }
  if (const std::string why = detail::disagreement(o); !why.empty()) {
    return make_error(Errc::invalid_argument,
                      "search policy '" + spec->name + "': the settings disagree: " + why);
  }
  o.initial = start.initial;
  return AnySearch(Evolutionary<>(std::move(o)));
}

}  // namespace aoe

#endif  // AOE_SEARCH_BY_NAME_HPP
