// A multi-armed bandit over search policies: OpenTuner's AUC bandit meta-technique.
#ifndef AOE_SEARCH_ENSEMBLE_HPP
#define AOE_SEARCH_ENSEMBLE_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/any_search.hpp"
#include "aoe/search/bayesian/bayesian.hpp"
#include "aoe/search/detail/initial_design.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/search/evolutionary.hpp"
#include "aoe/search/simulated_annealing.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

struct EnsembleOptions {
  /// Exploration weight C of the AUC bandit (OpenTuner's default 0.05).
  double exploration = 0.05;
  /// Uses remembered per member (OpenTuner's sliding window, 500).
  std::size_t window = 500;
  /// Proposals a member may return that are already known before another member is asked.
  std::size_t duplicate_tries = 4;
  /// Whether every member observes every trial (true), or only those it proposed (OpenTuner's
  /// bandit). Sharing lets the model-based member learn from every measurement and the local
  /// ones move to a better point another member found; the bandit still credits each member
  /// only for its own proposals.
  bool share_trials = true;
  /// Configurations measured first, before any member is asked (a runner's default
  /// configuration, the best of an earlier run); every member observes them. Invalid or
  /// repeated ones are skipped. Indices into the space that is tuned.
  std::vector<Configuration> initial{};
};

/// Runs several policies as arms of an AUC bandit (Ansel et al., "OpenTuner: an extensible
/// framework for program autotuning", PACT 2014; Fialho et al., "Analyzing bandit-based
/// adaptive operator selection mechanisms", AMAI 2010): each slot of a batch goes to the arm
/// with the highest area-under-curve credit for recent new bests plus an exploration term.
/// Every member observes every trial (`share_trials`; otherwise each observes exactly the
/// trials it proposed). A member's proposal that another member already made is not measured
/// again: the member is asked again (without sharing, it first observes the known result).
/// Default members: annealing, evolutionary, bayesian (random search is left out: with shared
/// trials every member already sees what it would find, and its arm only dilutes the budget).
class Ensemble {
 public:
  // The default constructor and default_members() are templates so that a TU that includes
  // this header without using them does not instantiate Bayesian<>'s Gaussian process (about
  // 2 s of compile time at -O2; bench/compile_time.sh).
  template <class = void>
  Ensemble() : Ensemble(default_members()) {}
  explicit Ensemble(std::vector<AnySearch> members, EnsembleOptions options = {})
      : options_(std::move(options)), members_(std::move(members)) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "ensemble"; }

  template <class = void>
  [[nodiscard]] static std::vector<AnySearch> default_members() {
    std::vector<AnySearch> m;
    m.emplace_back(SimulatedAnnealing<>{});
    m.emplace_back(Evolutionary<>{});
    m.emplace_back(Bayesian<>{});
    return m;
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
    owner_.clear();
    known_.clear();
    outcomes_.assign(members_.size(), {});
    uses_ = 0;
    best_ = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < members_.size(); ++i) {
      members_[i].start(view, derive_seed(seed, i + 1));
    }
    design_.clear();
    const auto first = detail::first_points(options_.initial, warm_);
    for (auto it = first.rbegin(); it != first.rend(); ++it) {
      if (it->size() == view->dimensions() && view->is_valid(*it)) design_.push_back(*it);
    }
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    while (out.size() < n && !design_.empty()) {
      Configuration c = std::move(design_.back());
      design_.pop_back();
      if (!visited_.insert(c)) continue;
      out.push_back(std::move(c));
    }
    std::vector<char> dry(members_.size(), 0);
    while (out.size() < n) {
      const std::size_t arm = pick(dry);
      std::optional<Configuration> c;
      if (arm < members_.size()) {
        c = ask(arm);
        if (!c) {
          dry[arm] = 1;
          continue;
        }
      } else {
        c = visited_.fresh(*view_, rng_);  // every member is dry: keep the run going
        if (!c) break;
      }
      visited_.insert(*c);
      owner_[*c] = arm;
      out.push_back(std::move(*c));
    }
    return out;
  }

  void observe(std::span<const Trial> trials) {
    std::vector<std::vector<Trial>> per(members_.size());
    for (const auto& t : trials) {
      const auto it = owner_.find(t.configuration);
      // The initial configurations and the fallback draws belong to no member.
      const std::size_t arm = it == owner_.end() ? members_.size() : it->second;
      const double v = detail::score(t);
      const bool improved = v < best_;
      if (improved) best_ = v;
      known_.emplace(t.configuration, t);
      if (arm < members_.size()) {
        per[arm].push_back(t);
        auto& h = outcomes_[arm];
        h.push_back(improved);
        if (h.size() > options_.window) h.pop_front();
        ++uses_;
      }
    }
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (options_.share_trials) {
        members_[i].observe(trials);
      } else if (!per[i].empty()) {
        members_[i].observe(per[i]);
      }
    }
  }

  [[nodiscard]] std::size_t size() const noexcept { return members_.size(); }
  [[nodiscard]] std::string_view member_name(std::size_t i) const { return members_[i].name(); }
  /// Member i, e.g. to read its state through `AnySearch::target`.
  [[nodiscard]] AnySearch& member(std::size_t i) { return members_[i]; }
  /// How many of the remembered uses of member i found a new best.
  [[nodiscard]] std::size_t successes(std::size_t i) const {
    std::size_t s = 0;
    for (const bool b : outcomes_[i]) s += b ? 1 : 0;
    return s;
  }
  /// How many times member i was used (within the window).
  [[nodiscard]] std::size_t uses(std::size_t i) const { return outcomes_[i].size(); }

 private:
  // AUC credit (recent successes weigh more) plus C * sqrt(2 ln N / n); untried arms first.
  std::size_t pick(const std::vector<char>& dry) const {
    std::size_t best = members_.size();
    double best_score = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < members_.size(); ++i) {
      if (dry[i]) continue;
      const auto& h = outcomes_[i];
      if (h.empty()) return i;
      double auc = 0;
      double rank = 0;
      for (const bool b : h) {
        rank += 1;
        if (b) auc += rank;
      }
      const double n = static_cast<double>(h.size());
      const double score =
          auc / (n * (n + 1) / 2) +
          options_.exploration * std::sqrt(2 * std::log(static_cast<double>(uses_) + 1) / n);
      if (score > best_score) {
        best_score = score;
        best = i;
      }
    }
    return best;
  }

  std::optional<Configuration> ask(std::size_t arm) {
    for (std::size_t t = 0; t < options_.duplicate_tries; ++t) {
      auto batch = members_[arm].propose(1);
      if (batch.empty()) return std::nullopt;
      if (!visited_.contains(batch[0])) return std::move(batch[0]);
      if (options_.share_trials) continue;  // it has observed the result, or will
      const auto it = known_.find(batch[0]);
      if (it != known_.end()) members_[arm].observe(std::span<const Trial>(&it->second, 1));
    }
    return std::nullopt;
  }

  EnsembleOptions options_;
  std::vector<Configuration> warm_;  // transfer's seeds (warm_start)
  std::vector<AnySearch> members_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::vector<Configuration> design_;  // initial configurations still to propose, next last
  std::unordered_map<Configuration, std::size_t, ConfigurationHash> owner_;
  std::unordered_map<Configuration, Trial, ConfigurationHash> known_;
  std::vector<std::deque<bool>> outcomes_;
  std::size_t uses_ = 0;
  double best_ = std::numeric_limits<double>::infinity();
};

static_assert(search_policy<Ensemble>);

}  // namespace aoe

#endif  // AOE_SEARCH_ENSEMBLE_HPP
