// A genetic algorithm for constrained discrete spaces: tournament selection, crossover,
// neighbourhood mutation, elitism and constraint-aware repair (Holland 1975; Goldberg, "Genetic
// Algorithms in Search, Optimization and Machine Learning", 1989), ask/tell, generation by
// generation, with optional pre-screening of offspring by a cost model. Tuning for the Pareto
// front of time and energy, it ranks by NSGA-II's non-dominated sorting and crowding instead.
#ifndef AOE_SEARCH_EVOLUTIONARY_HPP
#define AOE_SEARCH_EVOLUTIONARY_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/detail/initial_design.hpp"
#include "aoe/search/detail/nondominated.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/objective.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

/// How two parents' genes are combined.
enum class Crossover : std::uint8_t {
  uniform,       ///< each gene from either parent with probability 1/2 (Syswerda, ICGA 1989)
  single_point,  ///< genes before a random cut from one parent, after it from the other
};

struct EvolutionaryOptions {
  /// Individuals per generation. This, `tournament` and `step_mutation` were chosen on the
  /// protocol's tuning part (bench/tune-defaults; docs/research.md, "Tuned defaults"): 10, 5
  /// and 0.5 against the 20, 3 and 0.7 before, which aoe's jobs keep
  /// (`job_evolutionary_options`, search/by_name.hpp).
  std::size_t population = 10;
  /// Configurations proposed in all before `propose` returns none (0: no limit).
  std::size_t max_trials = 0;
  /// Crossover and per-gene mutation probabilities move within these ranges with the
  /// population's diversity: a converged population crosses less and mutates more (adaptive
  /// rates, Srinivas and Patnaik, IEEE Trans. SMC 24(4), 1994).
  double crossover_min = 0.6;
  double crossover_max = 0.9;
  double mutation_min = 0.05;
  double mutation_max = 0.25;
  std::size_t elite = 2;       ///< best individuals copied into the next generation unchanged
  std::size_t tournament = 5;  ///< individuals per selection tournament
  Crossover crossover = Crossover::uniform;
  /// Probability that a mutated gene steps one level (the neighbourhood move) rather than
  /// jumping to a random level.
  double step_mutation = 0.5;
  /// Stop (propose nothing more) after this many generations in a row whose elite's mean value
  /// changed by less than `early_stop_tolerance`, relatively (0: never).
  std::size_t early_stop_generations = 0;
  double early_stop_tolerance = 0.03;
  /// With a cost model: offspring generated per configuration proposed; the model's best
  /// predictions are proposed (1: no pre-screening).
  std::size_t screening = 4;
  /// Configurations the first generation starts with, in order (a runner's default
  /// configuration, the best of an earlier run); invalid or repeated ones are skipped and a
  /// Latin hypercube over the space fills the rest of it. Indices into the space that is tuned
  /// (`Space::find` builds them from named values).
  std::vector<Configuration> initial{};

  /// Huawei AOE's genetic-algorithm settings: population 50, at most 500 trials, crossover
  /// 0.6-0.9, mutation 0.01-0.1, 2 elites, early stop after 3 generations whose elite differs
  /// by less than 3% (CANN AOE documentation, "GA tuning" parameters); tournament 3 and
  /// step_mutation 0.7, as before the protocol tuned the defaults.
  [[nodiscard]] static EvolutionaryOptions aoe_preset() {
    return {.population = 50,
            .max_trials = 500,
            .crossover_min = 0.6,
            .crossover_max = 0.9,
            .mutation_min = 0.01,
            .mutation_max = 0.1,
            .elite = 2,
            .tournament = 3,
            .step_mutation = 0.7,
            .early_stop_generations = 3,
            .early_stop_tolerance = 0.03};
  }
};

/// No cost model: offspring are proposed as bred.
struct NoCostModel {};

/// Genetic search. The first generation is `initial` and a Latin hypercube. Every proposal is
/// new and valid: an invalid child is repaired to a valid neighbour (or resampled), a known
/// one is mutated again (or resampled), so no point is measured twice. Failed measurements
/// rank below every valid one. Trials it did not propose (another policy's, in an ensemble)
/// join the next selection like its own offspring. With a `cost_model` `Model` (e.g.
/// `GaussianProcess<Matern52>`), `screening` times as many offspring are bred and the model's
/// best predictions proposed.
template <class Model = NoCostModel>
class Evolutionary {
 public:
  static constexpr bool screens = !std::is_same_v<Model, NoCostModel>;
  static_assert(!screens || cost_model<Model>,
                "Evolutionary<Model>: Model must model aoe::cost_model (core/concepts.hpp)");

  Evolutionary() = default;
  explicit Evolutionary(EvolutionaryOptions options, Model model = {})
      : options_(std::move(options)), model_(std::move(model)) {}

  /// "evolutionary"; with a cost model, the model's `evolutionary_name` when it has one
  /// ("evolutionary-xgboost"), else "evolutionary-screened": a result's provenance says which.
  [[nodiscard]] static constexpr std::string_view name() noexcept {
    if constexpr (!screens) {
      return "evolutionary";
    } else if constexpr (requires { std::string_view(Model::evolutionary_name); }) {
      return Model::evolutionary_name;
    } else {
      return "evolutionary-screened";
    }
  }

  /// Transfer's seeds (aoe::takes_warm_start): measured first, after `initial`, within the
  /// initial design; replaced by the next call.
  bool warm_start(std::span<const Configuration> seeds) {
    warm_.assign(seeds.begin(), seeds.end());
    return true;
  }

  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    visited_.clear();
    population_.clear();
    offspring_.clear();
    queue_.clear();
    history_.clear();
    proposed_ = 0;
    generation_ = 0;
    calm_generations_ = 0;
    last_elite_ = std::numeric_limits<double>::quiet_NaN();
    stopped_ = false;
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    if (options_.max_trials) n = std::min(n, options_.max_trials - proposed_);
    while (out.size() < n && !stopped_) {
      if (queue_.empty() && !breed(n - out.size())) break;
      if (queue_.empty()) break;
      out.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    proposed_ += out.size();
    return out;
  }

  void observe(std::span<const Trial> trials) {
    for (const auto& t : trials) {
      visited_.insert(t.configuration);  // a trial it did not propose (an ensemble's) is known
      offspring_.push_back({t.configuration, detail::score(t), point(t)});
      if constexpr (screens) history_.push_back(t);
    }
  }

  /// Called by aoe::Tuner before each run with its objective: for pareto it takes the front
  /// itself (true: the trials are shown as measured), selecting by NSGA-II's constrained
  /// non-dominated sorting and crowding distance, a power cap's excess watts as the
  /// constraint's violation; for the other objectives the tuner's scalar (false).
  bool multi_objective(const Objective& o) noexcept {
    pareto_ = o.kind == ObjectiveKind::pareto;
    power_cap_ = o.power_cap_watts;
    return pareto_;
  }

  /// True once the early-stop rule fired.
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  [[nodiscard]] std::size_t generation() const noexcept { return generation_; }
  [[nodiscard]] const EvolutionaryOptions& options() const noexcept { return options_; }

 private:
  struct Individual {
    Configuration configuration;
    double value;
    detail::ObjectivePoint objectives{};  ///< pareto: time, energy and the cap's violation
    std::size_t front = 0;                ///< pareto: NSGA-II's front, 0 the best
    double crowding = 0;                  ///< pareto: crowding distance in its front
  };

  [[nodiscard]] detail::ObjectivePoint point(const Trial& t) const noexcept {
    detail::ObjectivePoint p;
    if (!pareto_ || !t.measurement.ok() || !t.measurement.energy) return p;
    p.seconds = t.measurement.value;
    p.joules = t.measurement.energy->joules;
    if (power_cap_ > 0) p.violation = std::max(0.0, t.measurement.energy->watts - power_cap_);
    return p;
  }

  /// Whether `a` wins a tournament against `b`: the smaller value, or with pareto the lower
  /// front, then the larger crowding distance.
  [[nodiscard]] bool better(const Individual& a, const Individual& b) const noexcept {
    if (!pareto_) return a.value < b.value;
    if (a.front != b.front) return a.front < b.front;
    return a.crowding > b.crowding;
  }

  // Forms the next generation from the last one and the offspring observed since, then queues
  // its children. False when nothing can be bred (space exhausted).
  bool breed(std::size_t wanted) {
    select_survivors();
    if (stopped_) return false;
    const std::size_t count = std::max<std::size_t>(
        {wanted, options_.population > options_.elite ? options_.population - options_.elite : 1});
    if (population_.size() < 2) {
      // The first generation (or a new one when every individual failed): spread over the
      // space, starting from the given configurations.
      const std::vector<Configuration> given = proposed_ == 0
                                                   ? detail::first_points(options_.initial, warm_)
                                                   : std::vector<Configuration>();
      for (auto& c : detail::initial_design(*view_, given, std::max(count, options_.population),
                                            visited_, rng_)) {
        queue_.push_back(std::move(c));
      }
      return !queue_.empty();
    }
    const double div = diversity();
    const double pc =
        options_.crossover_min + (options_.crossover_max - options_.crossover_min) * div;
    const double pm = options_.mutation_max - (options_.mutation_max - options_.mutation_min) * div;
    const std::size_t bred = screens && options_.screening > 1 ? count * options_.screening : count;
    std::vector<Configuration> children;
    for (std::size_t i = 0; i < bred; ++i) {
      auto c = child(pc, pm);
      if (!c) break;
      visited_.insert(*c);
      children.push_back(std::move(*c));
    }
    if constexpr (screens) {
      if (children.size() > count && !history_.empty()) {
        model_.fit(view_, history_);
        const auto predictions = model_.predict(children);
        std::vector<std::size_t> order(children.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return predictions[a].mean < predictions[b].mean;
        });
        std::vector<Configuration> kept;
        std::vector<bool> keep(children.size(), false);
        for (std::size_t i = 0; i < count; ++i) keep[order[i]] = true;
        // Screened-out children were never measured: they may be proposed later.
        for (std::size_t i = 0; i < children.size(); ++i) {
          if (keep[i]) {
            kept.push_back(std::move(children[i]));
          } else {
            visited_.erase(children[i]);
          }
        }
        children = std::move(kept);
      }
    }
    for (auto& c : children) queue_.push_back(std::move(c));
    return !queue_.empty();
  }

  /// NSGA-II's survivors: the old generation and its offspring ranked together, the best
  /// `population` by front, then crowding.
  void select_front_survivors() {
    std::vector<Individual> all = std::move(population_);
    all.insert(all.end(), offspring_.begin(), offspring_.end());
    std::vector<detail::ObjectivePoint> points;
    points.reserve(all.size());
    for (const auto& i : all) points.push_back(i.objectives);
    const detail::Ranking ranking = detail::rank_points(points);
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ranking.better(a, b); });
    population_.clear();
    for (std::size_t i = 0; i < order.size() && population_.size() < options_.population; ++i) {
      Individual& ind = all[order[i]];
      ind.front = ranking.front[order[i]];
      ind.crowding = ranking.crowding[order[i]];
      population_.push_back(std::move(ind));
    }
    offspring_.clear();
    ++generation_;
  }

  void select_survivors() {
    if (offspring_.empty()) return;
    if (pareto_) {
      select_front_survivors();
      return;
    }
    std::vector<Individual> pool = std::move(population_);
    std::sort(pool.begin(), pool.end(), by_value);
    std::sort(offspring_.begin(), offspring_.end(), by_value);
    std::vector<Individual> next;
    // Elites: the best of the old generation and the offspring together.
    std::vector<Individual> all = pool;
    all.insert(all.end(), offspring_.begin(), offspring_.end());
    std::stable_sort(all.begin(), all.end(), by_value);
    for (std::size_t i = 0; i < all.size() && next.size() < options_.elite; ++i) {
      next.push_back(all[i]);
    }
    auto contains = [&](const Configuration& c) {
      return std::any_of(next.begin(), next.end(),
                         [&](const Individual& x) { return x.configuration == c; });
    };
    for (const auto& o : offspring_) {
      if (next.size() >= options_.population) break;
      if (!contains(o.configuration)) next.push_back(o);
    }
    for (const auto& o : pool) {
      if (next.size() >= options_.population) break;
      if (!contains(o.configuration)) next.push_back(o);
    }
    population_ = std::move(next);
    offspring_.clear();
    ++generation_;
    check_early_stop();
  }

  void check_early_stop() {
    if (options_.early_stop_generations == 0) return;
    double sum = 0;
    std::size_t k = 0;
    for (std::size_t i = 0; i < population_.size() && i < std::max<std::size_t>(1, options_.elite);
         ++i) {
      sum += population_[i].value;
      ++k;
    }
    const double elite = sum / static_cast<double>(k);
    if (std::isfinite(elite) && std::isfinite(last_elite_) && last_elite_ != 0 &&
        std::fabs(elite - last_elite_) / std::fabs(last_elite_) < options_.early_stop_tolerance) {
      ++calm_generations_;
    } else {
      calm_generations_ = 0;
    }
    last_elite_ = elite;
    if (calm_generations_ >= options_.early_stop_generations) stopped_ = true;
  }

  static bool by_value(const Individual& a, const Individual& b) { return a.value < b.value; }

  // Fraction of genes that differ from the best individual's, over the population.
  [[nodiscard]] double diversity() const {
    const auto& best = population_.front().configuration;
    std::size_t differ = 0;
    std::size_t total = 0;
    for (const auto& ind : population_) {
      for (std::size_t d = 0; d < best.size(); ++d) {
        differ += ind.configuration[d] != best[d] ? 1 : 0;
        ++total;
      }
    }
    return total ? static_cast<double>(differ) / static_cast<double>(total) : 0;
  }

  const Configuration& select() {
    std::size_t winner = rng_.below(population_.size());
    for (std::size_t k = 1; k < options_.tournament; ++k) {
      const std::size_t other = rng_.below(population_.size());
      if (better(population_[other], population_[winner])) winner = other;
    }
    return population_[winner].configuration;
  }

  void mutate_gene(Configuration& c, std::size_t d) {
    const std::uint32_t card = view_->cardinality(d);
    if (card < 2) return;
    if (rng_.bernoulli(options_.step_mutation)) {
      if (c[d] == 0)
        c[d] = 1;
      else if (c[d] + 1 == card)
        c[d] = card - 2;
      else
        c[d] = rng_.below(2) ? c[d] + 1 : c[d] - 1;
    } else {
      const auto i = static_cast<std::uint32_t>(rng_.below(card - 1));
      c[d] = i >= c[d] ? i + 1 : i;
    }
  }

  std::optional<Configuration> child(double pc, double pm) {
    const std::size_t dims = view_->dimensions();
    for (std::size_t attempt = 0; attempt < 8 && dims > 0; ++attempt) {
      Configuration c = select();
      if (rng_.bernoulli(pc)) {
        const Configuration& other = select();
        if (options_.crossover == Crossover::uniform) {
          for (std::size_t d = 0; d < dims; ++d) {
            if (rng_.below(2)) c[d] = other[d];
          }
        } else {
          const std::size_t cut = 1 + rng_.below(dims);
          for (std::size_t d = cut; d < dims; ++d) c[d] = other[d];
        }
      }
      bool mutated = false;
      for (std::size_t d = 0; d < dims; ++d) {
        if (rng_.bernoulli(pm)) {
          mutate_gene(c, d);
          mutated = true;
        }
      }
      // A child equal to a known point gets one more mutation, so it is not measured twice.
      if (!mutated && visited_.contains(c)) mutate_gene(c, rng_.below(dims));
      if (!view_->is_valid(c)) {
        auto repaired = view_->random_neighbour(c, Neighbourhood::hamming, rng_, 32);
        if (!repaired) continue;
        c = std::move(*repaired);
      }
      if (!visited_.contains(c)) return c;
      if (auto n = visited_.fresh_neighbour(*view_, c, Neighbourhood::adjacent, rng_)) return n;
    }
    return visited_.fresh(*view_, rng_);
  }

  EvolutionaryOptions options_;
  std::vector<Configuration> warm_;  // transfer's seeds (warm_start)
  Model model_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::vector<Individual> population_;
  std::vector<Individual> offspring_;
  std::deque<Configuration> queue_;
  std::vector<Trial> history_;
  std::size_t proposed_ = 0;
  std::size_t generation_ = 0;
  std::size_t calm_generations_ = 0;
  double last_elite_ = std::numeric_limits<double>::quiet_NaN();
  bool stopped_ = false;
  bool pareto_ = false;   ///< tuning for the front (multi_objective)
  double power_cap_ = 0;  ///< pareto: watts over which a configuration is infeasible
};

static_assert(search_policy<Evolutionary<>>);

}  // namespace aoe

#endif  // AOE_SEARCH_EVOLUTIONARY_HPP
