// Bayesian optimisation: a Gaussian-process surrogate, an acquisition function (by default the
// GP-Hedge portfolio), candidates drawn from the valid space, constant-liar batches.
#ifndef AOE_SEARCH_BAYESIAN_BAYESIAN_HPP
#define AOE_SEARCH_BAYESIAN_BAYESIAN_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/bayesian/acquisition.hpp"
#include "aoe/search/bayesian/feasibility.hpp"
#include "aoe/search/bayesian/gaussian_process.hpp"
#include "aoe/search/bayesian/matern52.hpp"
#include "aoe/search/bayesian/parego.hpp"
#include "aoe/search/detail/initial_design.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/objective.hpp"
#include "aoe/vocab/trial.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace aoe {

struct BayesianOptions {
  /// Configurations measured before the surrogate is used (at least two must be valid):
  /// `initial` first, then a Latin hypercube over the space's encoding. 5: chosen on the
  /// protocol's tuning part over 10 (bench/tune-defaults; docs/research.md, "Tuned defaults").
  std::size_t initial_samples = 5;
  /// Configurations to measure first, in order (a runner's default configuration, the best
  /// of an earlier run); invalid or repeated ones are skipped. Indices into the space that is
  /// tuned (`Space::find` builds them from named values).
  std::vector<Configuration> initial{};
  /// Candidates scored per proposal: a uniform sample of the unvisited valid points (all of
  /// them when fewer), refreshed whenever the hyperparameters are refitted.
  std::size_t candidates = 2048;
  /// The best observed configurations whose Hamming neighbours are candidates too (local
  /// refinement next to the incumbents; a new best adds its neighbours at once). 1: the best
  /// only (3 before the local picks below; 1 with them does better on the Cartesian and the
  /// recorded spaces, docs/search.md "Local picks").
  std::size_t incumbents = 1;
  /// Further candidates next to the incumbents, shared among them: random moves of 2 to 4
  /// parameters at once (mostly by one level), which reach what single-parameter neighbours
  /// cannot when parameters interact (a tile's size and its step count). The surrogate picks
  /// among them; a trust region in the spirit of TuRBO (Eriksson et al., NeurIPS 2019).
  std::size_t local_candidates = 512;
  /// Hyperparameters are refitted (and the candidates redrawn) when the observations have grown
  /// by this fraction since the last fit; in between each observation is a rank-one update.
  double refit_growth = 0.25;
  /// At a refit, the surrogate is fitted on at most this many observations: the best half of
  /// them and an evenly spaced selection of the rest (later ones are appended until the next
  /// refit). Bounds the cost per proposal on long runs; budgets below it use all the data.
  std::size_t max_observations = 300;
  /// The surrogate holds at most this many observations: once the observations appended since
  /// the last fit bring it there, it is re-based on a `max_observations` subset as above with
  /// its hyperparameters kept (no likelihood search), so a proposal's cost stays flat however
  /// long the run (bench/bayesian_bench.cpp). At least `max_observations`.
  std::size_t max_active = 600;
  /// Learn where configurations fail (`KernelFeasibility`, once a failure was observed) and
  /// propose only among candidates whose probability of measuring correctly is at least
  /// `feasibility_threshold` (all candidates when none is).
  bool feasibility = true;
  double feasibility_threshold = 0.5;
  /// Failed configurations enter the objective model with a penalty (`GaussianProcessOptions::
  /// failure_penalty`); false: only the feasibility model learns from them.
  bool failures_in_surrogate = true;
  /// Spaces with at most this many raw points list their valid points once, so candidates are
  /// drawn exactly uniformly; larger ones are sampled through `Space::sample`.
  double enumerate_raw = 2'000'000;
  /// Every `isotropic_every`-th pick by the surrogate (0: none) is made on a second Gaussian
  /// process that keeps one length scale for all parameters (no ARD), while fewer than
  /// `isotropic_until` trials were observed. Per-parameter length scales fitted on a few dozen
  /// points can be confidently wrong (an optimum whose neighbours along the "irrelevant"
  /// parameters look poor); the isotropic model hedges against that. Off by default: 2 helps
  /// on the recorded SGEMM space and is level on the 28 recorded GPU spaces, but lowered the
  /// held-out Ascend 310P3 operators (docs/opencl.md, "The recorded space").
  std::size_t isotropic_every = 0;
  std::size_t isotropic_until = 300;
  /// Every `local_every`-th pick by the surrogate (0: none) is made among the live candidates
  /// within `local_radius` parameters of the best configuration (all live ones when none is
  /// left): a trust region of the incumbent alternating with the global picks. The global
  /// picks alone spend most of a run far from the incumbent, where few improvements are
  /// found; the improvements come from the incumbent's neighbours, which annealing walks
  /// (docs/search.md, "Local picks": on the Cartesian ktdata_gemm spaces, 78-88 % failing,
  /// this took Bayesian search from behind annealing to level with it).
  std::size_t local_every = 2;
  std::size_t local_radius = 1;
};

/// What `Bayesian` needs from its surrogate beyond `cost_model`: normalisation of a measurement,
/// rank-one `append`, `truncate` (to take constant-liar values back) and a candidate set whose
/// posterior it maintains. `GaussianProcess<K>` models it.
template <class S>
concept incremental_surrogate = cost_model<S> &&
    requires(S& s, const S& cs, const Measurement& m, std::span<const double> x,
             Eigen::VectorXd& v) {
  { cs.to_model(m) } -> std::convertible_to<double>;
  s.append(x, 0.0);
  s.truncate(std::size_t{0});
  s.set_candidates(x);
  s.add_candidates(x);
  cs.candidate_posterior(v, v);
  { cs.best() } -> std::convertible_to<double>;
};

/// An acquisition: picks a live candidate from posterior means and standard deviations.
/// Optional: `reward(mean)` after observations, `reset_nominations()` when candidates change.
template <class A>
concept acquisition_function = requires(A& a, const Eigen::VectorXd& v, std::span<const char> alive,
                                        double best, Rng& rng) {
  { a.select(v, v, alive, best, rng) } -> std::convertible_to<std::size_t>;
};

/// Bayesian search on the unit-cube encoding of the space (`Space::encode`). After an initial
/// design (`initial`, then a Latin hypercube), each proposal scores candidates — a uniform
/// sample of the unvisited valid points plus the Hamming neighbours and multi-parameter moves
/// of the incumbents; the space is never materialised when it is large — with `Acquisition` on
/// the surrogate's posterior, and proposes the best; every `local_every`-th pick only among
/// the candidates next to the best configuration (`local_radius`). Trials it did not propose
/// (another policy's, in an ensemble) are modelled like its own and never proposed again. A batch
/// of n uses the constant liar (Ginsbourger, Le Riche, Carraro, "Kriging is well-suited to
/// parallelize optimization", 2010): each pick is added as if it had measured the best value so
/// far, so the next pick goes elsewhere; the lies are dropped when the real trials arrive.
/// Failed configurations enter the surrogate with a penalty above the worst valid value.
/// Observations update the surrogate in O(n^2 + n m); hyperparameters are refitted as the data
/// grows by `refit_growth` (see bench/bayesian_bench.cpp for the costs).
template <class Surrogate = GaussianProcess<Matern52>, class Acquisition = Portfolio>
class Bayesian {
  static_assert(incremental_surrogate<Surrogate>,
                "Bayesian<Surrogate, ...>: Surrogate must model aoe::incremental_surrogate "
                "(bayesian.hpp), as GaussianProcess<Kernel> does");
  static_assert(acquisition_function<Acquisition>,
                "Bayesian<..., Acquisition>: Acquisition needs select(mean, sd, alive, best, rng) "
                "(see bayesian/acquisition.hpp)");

 public:
  Bayesian() = default;
  explicit Bayesian(BayesianOptions options, Surrogate surrogate = {}, Acquisition acquisition = {})
      : options_(std::move(options)),
        surrogate_(std::move(surrogate)),
        acquisition_(std::move(acquisition)) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "bayesian"; }

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
    history_.clear();
    raw_.clear();
    all_.clear();
    pool_.clear();
    alive_.clear();
    in_pool_.clear();
    expanded_.clear();
    feasibility_.clear();
    pending_lie_.reset();
    picks_ = 0;
    isotropic_.reset();
    if constexpr (requires(const Surrogate& s) {
                    { s.options() } -> std::convertible_to<GaussianProcessOptions>;
                  }) {
      if (options_.isotropic_every > 0 && options_.isotropic_until > 0) {
        GaussianProcessOptions g = surrogate_.options();
        g.ard_sweeps = 0;
        isotropic_.emplace(std::move(g));
      }
    }
    valid_ = 0;
    real_ = 0;
    fitted_at_ = 0;
    fitted_ = false;
    best_value_ = std::numeric_limits<double>::infinity();
    best_configuration_.reset();
    if (view->raw_size() <= options_.enumerate_raw) {
      view->for_each_valid([this](const Configuration& c) { all_.push_back(c); });
      seen_raw_.assign(static_cast<std::size_t>(view->raw_size()), 0);
    } else {
      seen_raw_.clear();
    }
    design_ = detail::initial_design(*view, detail::first_points(options_.initial, warm_),
                                     options_.initial_samples, visited_, rng_);
    for (const auto& c : design_) mark_seen(c);
    std::reverse(design_.begin(), design_.end());
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    while (out.size() < n) {
      if (!design_.empty()) {
        out.push_back(std::move(design_.back()));
        design_.pop_back();
        continue;
      }
      std::optional<Configuration> c;
      if (valid_ >= 2 && history_.size() >= options_.initial_samples) {
        if (parego_ && out.empty()) rescalarise();  // a new weight vector per batch
        c = suggest();
      }
      if (!c) c = visited_.fresh(*view_, rng_);
      if (!c) break;
      visited_.insert(*c);
      mark_seen(*c);
      out.push_back(std::move(*c));
    }
    return out;
  }

  void observe(std::span<const Trial> trials) {
    if (!parego_) {
      observe_scalar(trials);
      return;
    }
    raw_.insert(raw_.end(), trials.begin(), trials.end());
    parego_->normalise_over(raw_);
    std::vector<Trial> scalar;
    scalar.reserve(trials.size());
    for (const auto& t : trials) scalar.push_back(parego_->scalarised(t));
    observe_scalar(scalar);
  }

  /// Called by aoe::Tuner before each run with its objective: for pareto it takes the front
  /// itself (true: the trials are shown as measured) by ParEGO, its surrogate fitted before
  /// each batch on the augmented Tchebycheff function of a new weight vector
  /// (bayesian/parego.hpp); for the other objectives the tuner's scalar (false).
  bool multi_objective(const Objective& o) {
    if (o.kind != ObjectiveKind::pareto) {
      parego_.reset();
      return false;
    }
    parego_.emplace(o.power_cap_watts);
    return true;
  }

  [[nodiscard]] const Surrogate& surrogate() const noexcept { return surrogate_; }
  [[nodiscard]] const Acquisition& acquisition() const noexcept { return acquisition_; }
  [[nodiscard]] const BayesianOptions& options() const noexcept { return options_; }
  /// Observations at the last hyperparameter fit (0: none yet).
  [[nodiscard]] std::size_t fitted_at() const noexcept { return fitted_at_; }

 private:
  /// The observations as the surrogate sees them (ParEGO's scalarisation, or as measured).
  void observe_scalar(std::span<const Trial> trials) {
    if (fitted_) {
      surrogate_.truncate(real_);
      if (isotropic_) isotropic_->truncate(real_);
    }
    pending_lie_.reset();
    const Trial* new_best = nullptr;
    for (const auto& t : trials) {
      visited_.insert(t.configuration);  // a trial it did not propose (an ensemble's) is known
      mark_seen(t.configuration);
      history_.push_back(t);
      const bool ok = t.measurement.ok();
      if (ok) {
        ++valid_;
        if (t.measurement.value < best_value_) {
          best_value_ = t.measurement.value;
          best_configuration_ = t.configuration;
          new_best = &t;
        }
      }
      const auto x = view_->encode(t.configuration);
      if (fitted_ && (ok || options_.failures_in_surrogate)) {
        surrogate_.append(x, surrogate_.to_model(t.measurement));
        if (isotropic_) isotropic_->append(x, isotropic_->to_model(t.measurement));
        ++real_;
      }
      observe_feasibility(x, ok);
    }
    if (isotropic_ && history_.size() >= options_.isotropic_until) isotropic_.reset();
    if (!fitted_) return;
    if constexpr (requires(Acquisition & a, const Eigen::VectorXd& m) { a.reward(m); }) {
      surrogate_.candidate_posterior(mean_, sd_);
      acquisition_.reward(mean_);
    }
    if (new_best) add_neighbours(new_best->configuration);
  }

  /// ParEGO: a new weight vector, every observation scalarised again, the best again, and the
  /// surrogate refitted on them (keeping its hyperparameters between the scheduled refits).
  void rescalarise() {
    parego_->draw_weights(rng_);
    best_value_ = std::numeric_limits<double>::infinity();
    best_configuration_.reset();
    for (std::size_t i = 0; i < history_.size() && i < raw_.size(); ++i) {
      history_[i] = parego_->scalarised(raw_[i]);
      if (history_[i].measurement.ok() && history_[i].measurement.value < best_value_) {
        best_value_ = history_[i].measurement.value;
        best_configuration_ = history_[i].configuration;
      }
    }
    if (fitted_) refit(false);
  }

  std::optional<Configuration> suggest() {
    const auto grown = static_cast<double>(fitted_at_) * (1.0 + options_.refit_growth);
    if (!fitted_ || static_cast<double>(history_.size()) >=
                        std::max(grown, static_cast<double>(fitted_at_) + 1.0)) {
      refit();
    }
    if (fitted_ && real_ >= std::max(options_.max_active, options_.max_observations)) {
      refit(false);
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
      // Constant liar (the "min" variant): the previous pick of this batch, not yet measured,
      // is modelled as if it had measured the best value so far, so the next pick goes
      // elsewhere. Added only when a further pick is asked for before the observations.
      if (pending_lie_) {
        const std::size_t d = view_->dimensions();
        const std::span<const double> x(coords_.data() + *pending_lie_ * d, d);
        surrogate_.append(x, surrogate_.best());
        if (isotropic_) isotropic_->append(x, isotropic_->best());
        pending_lie_.reset();
      }
      // Every isotropic_every-th pick on the isotropic model (while it is kept).
      const bool iso =
          isotropic_ && picks_ % options_.isotropic_every + 1 == options_.isotropic_every;
      Surrogate& model = iso ? *isotropic_ : surrogate_;
      model.candidate_posterior(mean_, sd_);
      std::span<const char> alive = live_candidates();
      const bool local =
          options_.local_every > 0 && picks_ % options_.local_every + 1 == options_.local_every;
      if (local) alive = local_only(alive);
      std::size_t j = acquisition_.select(mean_, sd_, alive, model.best(), rng_);
      // A candidate proposed meanwhile by the random fallback is dead, not a second proposal.
      while (j < pool_.size() && visited_.contains(pool_[j])) {
        alive_[j] = 0;
        if (!gated_.empty()) gated_[j] = 0;
        if (j < local_mask_.size()) local_mask_[j] = 0;
        j = acquisition_.select(mean_, sd_, alive, model.best(), rng_);
      }
      if (j < pool_.size() && alive_[j]) {
        alive_[j] = 0;
        pending_lie_ = j;
        ++picks_;
        return pool_[j];
      }
      refit();
    }
    return std::nullopt;
  }

  // The candidates the acquisition may pick: the live ones, and once failures were seen, only
  // those the feasibility model deems likely to measure correctly (if any is).
  std::span<const char> live_candidates() {
    if (!feasibility_active()) return alive_;
    feasibility_.probabilities(feasible_);
    gated_.assign(alive_.begin(), alive_.end());
    bool any = false;
    for (std::size_t j = 0; j < gated_.size(); ++j) {
      if (gated_[j] && feasible_(static_cast<Eigen::Index>(j)) < options_.feasibility_threshold) {
        gated_[j] = 0;
      }
      any = any || gated_[j];
    }
    if (!any) {
      gated_.clear();
      return alive_;
    }
    return gated_;
  }

  // The live candidates within `local_radius` parameters of the best configuration (all live
  // ones when none is).
  std::span<const char> local_only(std::span<const char> live) {
    if (!best_configuration_) return live;
    const Configuration& b = *best_configuration_;
    local_mask_.assign(live.begin(), live.end());
    bool any = false;
    for (std::size_t j = 0; j < local_mask_.size(); ++j) {
      if (!local_mask_[j]) continue;
      std::size_t differ = 0;
      for (std::size_t d = 0; d < b.size(); ++d) differ += pool_[j][d] != b[d] ? 1 : 0;
      local_mask_[j] = static_cast<char>(differ <= options_.local_radius);
      any = any || local_mask_[j];
    }
    return any ? std::span<const char>(local_mask_) : live;
  }

  [[nodiscard]] bool feasibility_active() const {
    if constexpr (requires(const Surrogate& s, const double* p) { s.kernel()(p, p); }) {
      return options_.feasibility && feasibility_.failures() > 0;
    } else {
      return false;
    }
  }

  void observe_feasibility(std::span<const double> x, bool ok) {
    if constexpr (requires(const Surrogate& s, const double* p) { s.kernel()(p, p); }) {
      if (!options_.feasibility) return;
      const bool was_active = feasibility_active();
      feasibility_.add(surrogate_.kernel(), x, ok,
                       was_active ? std::span<const double>(coords_) : std::span<const double>{});
      if (!was_active && feasibility_active() && fitted_) {
        feasibility_.set_candidates(surrogate_.kernel(), coords_, view_->dimensions());
      }
    }
  }

  // Fits the surrogate on the history (a bounded subset of it when long) and redraws the
  // candidates. `hyperparameters` false: a re-base of the active set that keeps them.
  void refit(bool hyperparameters = true) {
    pending_lie_.reset();
    const std::vector<Trial> subset = observations_to_fit();
    fit_surrogates(subset, hyperparameters);
    real_ = subset.size();
    if (hyperparameters || !fitted_) fitted_at_ = history_.size();
    fitted_ = true;
    draw_candidates();
    incumbents_into_pool();
    publish_candidates();
  }

  // The observations a fit uses: every usable one, or, past max_observations, the best half of
  // that many and an even spread over the rest by score.
  [[nodiscard]] std::vector<Trial> observations_to_fit() const {
    std::vector<const Trial*> usable;
    usable.reserve(history_.size());
    for (const auto& t : history_) {
      if (options_.failures_in_surrogate || t.measurement.ok()) usable.push_back(&t);
    }
    std::vector<Trial> subset;
    if (usable.size() <= options_.max_observations) {
      for (const Trial* t : usable) subset.push_back(*t);
      return subset;
    }
    std::vector<std::size_t> order(usable.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t half = options_.max_observations / 2;
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(half), order.end(),
                      [&](std::size_t a, std::size_t b) {
                        return detail::score(*usable[a]) < detail::score(*usable[b]);
                      });
    subset.reserve(options_.max_observations);
    for (std::size_t i = 0; i < half; ++i) subset.push_back(*usable[order[i]]);
    const std::size_t rest = usable.size() - half;
    const std::size_t more = options_.max_observations - half;
    for (std::size_t i = 0; i < more; ++i) {
      subset.push_back(*usable[order[half + i * rest / more]]);
    }
    return subset;
  }

  // Fits the surrogate (and the isotropic one, while kept) on `subset`; `hyperparameters`
  // false keeps those of the last fit where the surrogate can.
  void fit_surrogates(const std::vector<Trial>& subset, bool hyperparameters) {
    for (Surrogate* s : {&surrogate_, isotropic_ ? &*isotropic_ : nullptr}) {
      if (s == nullptr) continue;
      if constexpr (requires(Surrogate & m) { m.fit_keeping_hyperparameters(view_, subset); }) {
        if (!hyperparameters && fitted_) {
          s->fit_keeping_hyperparameters(view_, subset);
        } else {
          s->fit(view_, subset);
        }
      } else {
        s->fit(view_, subset);
      }
    }
  }

  // Empties the candidate pool and fills it with up to `candidates` unvisited valid points
  // drawn uniformly (from all_ when the space is listed, else sampled).
  void draw_candidates() {
    pool_.clear();
    coords_.clear();
    in_pool_.clear();
    expanded_.clear();
    const std::size_t want = options_.candidates;
    if (!all_.empty()) {
      std::vector<std::size_t> left;
      for (std::size_t i = 0; i < all_.size(); ++i) {
        if (!seen_raw_[raw_index(all_[i])]) left.push_back(i);
      }
      const std::size_t take = std::min(want, left.size());
      for (std::size_t i = 0; i < take; ++i) {
        std::swap(left[i], left[i + rng_.below(left.size() - i)]);
        push_candidate(all_[left[i]]);
      }
    } else {
      for (std::size_t t = 0; t < 2 * want && pool_.size() < want; ++t) {
        auto c = view_->sample(rng_, 64, 100'000);
        if (!c) break;
        if (!visited_.contains(*c) && !in_pool_.contains(*c)) push_candidate(std::move(*c));
      }
    }
  }

  // Adds the Hamming neighbours and multi-parameter moves of the `incumbents` best
  // configurations measured to the pool.
  void incumbents_into_pool() {
    std::vector<const Trial*> best;
    for (const auto& t : history_) {
      if (t.measurement.ok()) best.push_back(&t);
    }
    const std::size_t k = std::min(options_.incumbents, best.size());
    std::partial_sort(
        best.begin(), best.begin() + static_cast<std::ptrdiff_t>(k), best.end(),
        [](const Trial* a, const Trial* b) { return a->measurement.value < b->measurement.value; });
    for (std::size_t i = 0; i < k; ++i) {
      neighbours_into_pool(best[i]->configuration);
      local_into_pool(best[i]->configuration, options_.local_candidates / k);
    }
  }

  // Makes the pool the live candidates of the models and the acquisition.
  void publish_candidates() {
    alive_.assign(pool_.size(), 1);
    surrogate_.set_candidates(coords_);
    if (isotropic_) isotropic_->set_candidates(coords_);
    if constexpr (requires(const Surrogate& s, const double* p) { s.kernel()(p, p); }) {
      if (feasibility_active()) {
        feasibility_.set_candidates(surrogate_.kernel(), coords_, view_->dimensions());
      }
    }
    if constexpr (requires(Acquisition & a) { a.reset_nominations(); }) {
      acquisition_.reset_nominations();
    }
  }

  // Position of c in the raw (Cartesian) space, mixed radix: the index into seen_raw_.
  [[nodiscard]] std::size_t raw_index(const Configuration& c) const {
    std::size_t r = 0;
    for (std::size_t d = 0; d < c.size(); ++d) r = r * view_->cardinality(d) + c[d];
    return r;
  }
  // Marks c proposed or observed in seen_raw_ (spaces listed in all_ only): what lets a refit
  // find the unvisited points without a hash lookup per valid point.
  void mark_seen(const Configuration& c) {
    if (!seen_raw_.empty()) seen_raw_[raw_index(c)] = 1;
  }

  void push_candidate(Configuration c) {
    const auto x = view_->encode(c);
    coords_.insert(coords_.end(), x.begin(), x.end());
    in_pool_.insert(c);
    pool_.push_back(std::move(c));
  }

  void neighbours_into_pool(const Configuration& c) {
    if (!expanded_.insert(c).second) return;
    for (auto& n : view_->neighbours(c, Neighbourhood::hamming)) {
      if (!visited_.contains(n) && !in_pool_.contains(n)) push_candidate(std::move(n));
    }
  }

  // Up to `count` unvisited valid configurations that differ from c in 2 to 4 parameters.
  void local_into_pool(const Configuration& c, std::size_t count) {
    const std::size_t dims = view_->dimensions();
    if (dims < 2) return;
    std::size_t added = 0;
    for (std::size_t t = 0; t < 4 * count && added < count; ++t) {
      Configuration n = c;
      const std::size_t moves = std::min<std::size_t>(dims, 2 + rng_.below(3));
      for (std::size_t m = 0; m < moves; ++m) {
        const std::size_t d = rng_.below(dims);
        const std::uint32_t card = view_->cardinality(d);
        if (card < 2) continue;
        if (rng_.bernoulli(0.75)) {
          if (n[d] == 0 || (n[d] + 1 < card && rng_.below(2) == 1)) {
            ++n[d];
          } else {
            --n[d];
          }
        } else {
          n[d] = static_cast<std::uint32_t>(rng_.below(card));
        }
      }
      if (n == c || !view_->is_valid(n) || visited_.contains(n) || in_pool_.contains(n)) continue;
      push_candidate(std::move(n));
      ++added;
    }
  }

  // Between refits: the new incumbent's neighbours join the candidates.
  void add_neighbours(const Configuration& c) {
    const std::size_t first = pool_.size();
    neighbours_into_pool(c);
    local_into_pool(c, options_.local_candidates / std::max<std::size_t>(1, options_.incumbents));
    if (pool_.size() == first) return;
    alive_.resize(pool_.size(), 1);
    const std::size_t d = view_->dimensions();
    const std::span<const double> added(coords_.data() + first * d, (pool_.size() - first) * d);
    surrogate_.add_candidates(added);
    if (isotropic_) isotropic_->add_candidates(added);
    if constexpr (requires(const Surrogate& s, const double* p) { s.kernel()(p, p); }) {
      if (feasibility_active()) feasibility_.add_candidates(surrogate_.kernel(), coords_, first);
    }
  }

  BayesianOptions options_;
  std::vector<Configuration> warm_;  // transfer's seeds (warm_start)
  Surrogate surrogate_;
  std::optional<Surrogate> isotropic_;  // see BayesianOptions::isotropic_every
  std::size_t picks_ = 0;               // picks made by a surrogate
  Acquisition acquisition_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::vector<Configuration> design_;  // the initial design still to propose, the next one last
  std::vector<Trial> history_;         // as the surrogate sees them (ParEGO: scalarised)
  std::vector<Trial> raw_;             // ParEGO: the trials as measured, aligned with history_
  std::optional<ParegoScalarisation> parego_;  // set: tuning for the Pareto front
  std::vector<Configuration> all_;
  std::vector<char> seen_raw_;  // per raw point: proposed or observed (when all_ is listed)
  std::vector<Configuration> pool_;
  std::vector<double> coords_;
  std::vector<char> alive_;
  std::unordered_set<Configuration, ConfigurationHash> in_pool_;
  std::unordered_set<Configuration, ConfigurationHash> expanded_;
  Eigen::VectorXd mean_;
  Eigen::VectorXd sd_;
  KernelFeasibility feasibility_;
  Eigen::VectorXd feasible_;      // p(feasible) of each candidate
  std::vector<char> gated_;       // alive_ and likely feasible (empty: not in use)
  std::vector<char> local_mask_;  // live and near the best (a local pick)
  std::optional<Configuration> best_configuration_;
  std::optional<std::size_t> pending_lie_;  // the last pick, lied about before the next one
  std::size_t valid_ = 0;
  std::size_t real_ = 0;
  std::size_t fitted_at_ = 0;
  bool fitted_ = false;
  double best_value_ = std::numeric_limits<double>::infinity();
};

static_assert(search_policy<Bayesian<>>);

}  // namespace aoe

#endif  // AOE_SEARCH_BAYESIAN_BAYESIAN_HPP
