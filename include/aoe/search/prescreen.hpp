// Pre-screening with a cost model (docs/search.md#the-analytic-cost-model): draw a large pool of
// candidates, measure only the best predicted. After the given first points (the default
// configuration, the bank's stored one, the winners of similar operators) it measures the model's
// best of a random pool (each polished by a short descent on the model), then alternates between
// the model's best neighbour of the best measured configurations and, one proposal in four, a
// random neighbour of the best (the model's errors are systematic: measurements correct them).
#ifndef AOE_SEARCH_PRESCREEN_HPP
#define AOE_SEARCH_PRESCREEN_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/detail/initial_design.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace aoe {

struct PreScreenOptions {
  /// Configurations measured first, in order (invalid or repeated ones are skipped).
  std::vector<Configuration> initial{};
  /// Random valid configurations the model ranks at the start.
  std::size_t pool = 2048;
  /// The pool's best this many are polished by a steepest descent on the model (adjacent
  /// neighbours, at most `polish_steps` moves each) before ranking.
  std::size_t polish = 8;
  std::size_t polish_steps = 8;
  /// Proposals taken from the ranked pool before the local ones start.
  std::size_t global = 6;
  /// Measured configurations (the best ones) whose neighbours the model ranks.
  std::size_t local_best = 3;
  /// Every `explore_every`-th local proposal is a random adjacent neighbour of the best
  /// measured one instead of the model's choice (0: never).
  std::size_t explore_every = 4;
};

/// See the file comment. `Model` models `aoe::cost_model`; only its `predict` means are read
/// (lower is better; +infinity, an infeasible configuration, is never proposed from the pool).
template <class Model>
class PreScreen {
 public:
  static_assert(cost_model<Model>, "PreScreen<Model>: Model must model aoe::cost_model");

  PreScreen(PreScreenOptions options, Model model)
      : options_(std::move(options)), model_(std::move(model)) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "prescreen"; }

  /// Transfer's seeds (aoe::takes_warm_start): measured first, after `initial`; replaced by
  /// the next call.
  bool warm_start(std::span<const Configuration> seeds) {
    warm_.assign(seeds.begin(), seeds.end());
    return true;
  }

  void start(SpaceView view, std::uint64_t seed) {
    view_ = view;
    rng_.reseed(seed);
    visited_.clear();
    next_initial_ = 0;
    first_ = detail::first_points(options_.initial, warm_);
    ranked_.clear();
    next_ranked_ = 0;
    global_taken_ = 0;
    local_taken_ = 0;
    measured_.clear();
    rank_pool();
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    while (out.size() < n) {
      std::optional<Configuration> c = from_initial();
      if (!c && (global_taken_ < options_.global || measured_.empty())) c = from_pool();
      if (!c) c = from_neighbours();
      if (!c) c = from_pool();
      if (!c) c = visited_.fresh(*view_, rng_);
      if (!c) break;
      visited_.insert(*c);
      out.push_back(std::move(*c));
    }
    return out;
  }

  void observe(std::span<const Trial> trials) {
    for (const auto& t : trials) {
      visited_.insert(t.configuration);
      const double v = detail::score(t);
      measured_.push_back({t.configuration, v});
    }
    std::stable_sort(measured_.begin(), measured_.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
  }

 private:
  [[nodiscard]] double predicted(const Configuration& c) const {
    const auto p = model_.predict(std::span<const Configuration>(&c, 1));
    return p.front().mean;
  }

  void rank_pool() {
    const Space& space = *view_;
    if (space.dimensions() == 0) return;
    std::unordered_set<Configuration, ConfigurationHash> seen;
    std::vector<Configuration> pool;
    for (std::size_t i = 0; i < options_.pool * 2 && pool.size() < options_.pool; ++i) {
      auto c = space.sample(rng_);
      if (!c) break;
      if (seen.insert(*c).second) pool.push_back(std::move(*c));
    }
    auto scores = model_.predict(std::span<const Configuration>(pool));
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t i = 0; i < pool.size(); ++i) order.emplace_back(scores[i].mean, i);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // Polish the best few by a descent on the model.
    std::vector<std::pair<double, Configuration>> ranked;
    for (std::size_t i = 0; i < order.size() && i < options_.polish; ++i) {
      Configuration c = pool[order[i].second];
      double v = order[i].first;
      for (std::size_t step = 0; step < options_.polish_steps; ++step) {
        const auto ns = space.neighbours(c, Neighbourhood::adjacent);
        if (ns.empty()) break;
        const auto ps = model_.predict(std::span<const Configuration>(ns));
        std::size_t best = ns.size();
        for (std::size_t j = 0; j < ns.size(); ++j) {
          if (ps[j].mean < v) {
            v = ps[j].mean;
            best = j;
          }
        }
        if (best == ns.size()) break;
        c = ns[best];
      }
      if (seen.insert(c).second) ranked.emplace_back(v, std::move(c));
    }
    for (const auto& [v, i] : order) {
      if (!(v < std::numeric_limits<double>::infinity())) break;
      ranked.emplace_back(v, pool[i]);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& r : ranked) ranked_.push_back(std::move(r.second));
  }

  std::optional<Configuration> from_initial() {
    while (next_initial_ < first_.size()) {
      const Configuration& c = first_[next_initial_++];
      if (c.size() == view_->dimensions() && view_->is_valid(c) && !visited_.contains(c)) return c;
    }
    return std::nullopt;
  }

  std::optional<Configuration> from_pool() {
    while (next_ranked_ < ranked_.size()) {
      const Configuration& c = ranked_[next_ranked_++];
      if (!visited_.contains(c)) {
        ++global_taken_;
        return c;
      }
    }
    return std::nullopt;
  }

  std::optional<Configuration> from_neighbours() {
    if (measured_.empty()) return std::nullopt;
    ++local_taken_;
    if (options_.explore_every && local_taken_ % options_.explore_every == 0) {
      if (auto c = visited_.fresh_neighbour(*view_, measured_.front().first,
                                            Neighbourhood::adjacent, rng_))
        return c;
    }
    std::vector<Configuration> candidates;
    std::unordered_set<Configuration, ConfigurationHash> seen;
    for (std::size_t b = 0; b < measured_.size() && b < options_.local_best; ++b) {
      for (const auto kind : {Neighbourhood::adjacent, Neighbourhood::hamming}) {
        for (auto& c : view_->neighbours(measured_[b].first, kind)) {
          if (!visited_.contains(c) && seen.insert(c).second) candidates.push_back(std::move(c));
        }
      }
    }
    if (candidates.empty()) return std::nullopt;
    const auto ps = model_.predict(std::span<const Configuration>(candidates));
    std::size_t best = 0;
    for (std::size_t j = 1; j < candidates.size(); ++j) {
      if (ps[j].mean < ps[best].mean) best = j;
    }
    if (!(ps[best].mean < std::numeric_limits<double>::infinity())) return std::nullopt;
    return std::move(candidates[best]);
  }

  PreScreenOptions options_;
  std::vector<Configuration> warm_;   // transfer's seeds (warm_start)
  std::vector<Configuration> first_;  // initial, then warm_
  Model model_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::size_t next_initial_ = 0;
  std::vector<Configuration> ranked_;
  std::size_t next_ranked_ = 0;
  std::size_t global_taken_ = 0;
  std::size_t local_taken_ = 0;
  std::vector<std::pair<Configuration, double>> measured_;  // best first
};

}  // namespace aoe

#endif  // AOE_SEARCH_PRESCREEN_HPP
