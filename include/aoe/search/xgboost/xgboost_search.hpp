// Model-based search with a learned cost model as its surrogate (the search of TVM's Ansor and
// MetaSchedule: Zheng et al., OSDI 2020; Shao et al., NeurIPS 2022): each proposal scores a
// large pool of candidates around the best measured configurations with boosted trees trained
// on every trial so far (and on earlier problems' trials) and measures only the best predicted.
// Part of the optional component aoe::xgboost.
#ifndef AOE_SEARCH_XGBOOST_XGBOOST_SEARCH_HPP
#define AOE_SEARCH_XGBOOST_XGBOOST_SEARCH_HPP

#include "aoe/core/random.hpp"
#include "aoe/search/detail/initial_design.hpp"
#include "aoe/search/detail/visited.hpp"
#include "aoe/search/transfer_data.hpp"
#include "aoe/search/xgboost/xgboost_model.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/tuner/concepts.hpp"
#include "aoe/vocab/trial.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <numeric>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace aoe {

struct XGBoostSearchOptions {
  XGBoostOptions model{};
  /// Configurations measured before the model proposes: `initial`, then a Latin hypercube.
  /// With earlier problems' trials in `prior` the model ranks from the start, so fewer are
  /// drawn (not for `prior`'s winner rows alone: they rank nothing).
  std::size_t initial_samples = 8;
  std::size_t initial_samples_with_prior = 2;
  std::size_t pool = 384;   ///< candidates the model scores per proposal
  std::size_t parents = 6;  ///< best measured configurations whose neighbourhoods fill the pool
  /// Descents on the model: from the best predicted candidates, this many steps each to the
  /// best predicted Hamming neighbour, so the search reaches the model's optimum beyond the
  /// measured points' neighbourhoods (Ansor's search on the cost model, in small).
  std::size_t descents = 4;
  std::size_t descent_steps = 4;
  /// Probability that a proposed slot is a random pool member instead of the best predicted
  /// (exploration, as Ansor's epsilon-greedy measurement).
  double epsilon = 0.05;
  std::vector<Configuration> initial{};  ///< measured first (default, stored, similar winners)
  std::vector<Feature> context{};        ///< the problem's features (operator, SoC)
  std::shared_ptr<const TransferData> prior{};  ///< earlier problems' trials
};

/// See the file comment. Proposes each configuration at most once; a failed trial is learned
/// as slow (`normalised_targets`). Deterministic for a seed (XGBoost runs on one thread).
class XGBoostSearch {
 public:
  XGBoostSearch() = default;
  explicit XGBoostSearch(XGBoostSearchOptions options) : options_(std::move(options)) {}

  [[nodiscard]] static constexpr std::string_view name() noexcept { return "xgboost"; }

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
    queue_.clear();
    history_.clear();
    auto mo = options_.model;
    mo.seed = seed;
    model_ = XGBoostModel(mo, options_.context, options_.prior);
    // Earlier trials rank this problem's candidates from the start; winners alone do not.
    const bool prior = options_.prior && options_.prior->rows.size() > options_.prior->winner_rows;
    const auto first = detail::first_points(options_.initial, warm_);
    const std::size_t n = std::max(
        first.size(), prior ? options_.initial_samples_with_prior : options_.initial_samples);
    for (auto& c : detail::initial_design(*view_, first, n, visited_, rng_)) {
      queue_.push_back(std::move(c));
    }
  }

  [[nodiscard]] std::vector<Configuration> propose(std::size_t n) {
    std::vector<Configuration> out;
    while (out.size() < n && !queue_.empty()) {
      out.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    if (out.size() < n) {
      for (auto& c : from_model(n - out.size())) out.push_back(std::move(c));
    }
    return out;
  }

  void observe(std::span<const Trial> trials) {
    for (const auto& t : trials) {
      visited_.insert(t.configuration);
      history_.push_back(t);
    }
  }

 private:
  std::vector<Configuration> from_model(std::size_t n) {
    std::vector<Configuration> pool = candidates();
    if (pool.empty()) {
      std::vector<Configuration> out;
      while (out.size() < n) {
        auto c = visited_.fresh(*view_, rng_);
        if (!c) break;
        visited_.insert(*c);
        out.push_back(std::move(*c));
      }
      return out;
    }
    model_.fit(view_, history_);
    auto predicted = model_.predict(pool);
    descend(pool, predicted);
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return predicted[a].mean < predicted[b].mean;
    });
    std::vector<bool> taken(pool.size(), false);
    std::vector<Configuration> out;
    std::size_t next = 0;
    while (out.size() < n && out.size() < pool.size()) {
      std::size_t pick = 0;
      if (rng_.bernoulli(options_.epsilon)) {
        pick = rng_.below(pool.size());
        if (taken[pick]) continue;
      } else {
        while (next < order.size() && taken[order[next]]) ++next;
        if (next == order.size()) break;
        pick = order[next];
      }
      taken[pick] = true;
      visited_.insert(pool[pick]);
      out.push_back(pool[pick]);
    }
    return out;
  }

  // Greedy descents on the model from the best predicted pool members; every point they reach
  // joins the pool with its prediction.
  void descend(std::vector<Configuration>& pool, std::vector<Prediction>& predicted) {
    if (options_.descents == 0 || options_.descent_steps == 0) return;
    detail::Visited in_pool;
    for (const auto& c : pool) in_pool.insert(c);
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return predicted[a].mean < predicted[b].mean;
    });
    std::vector<std::pair<Configuration, double>> walkers;
    for (std::size_t k = 0; k < options_.descents && k < order.size(); ++k) {
      walkers.emplace_back(pool[order[k]], predicted[order[k]].mean);
    }
    for (std::size_t step = 0; step < options_.descent_steps && !walkers.empty(); ++step) {
      std::vector<Configuration> moves;
      std::vector<std::size_t> owner;
      for (std::size_t w = 0; w < walkers.size(); ++w) {
        for (auto& n : view_->neighbours(walkers[w].first, Neighbourhood::hamming)) {
          if (visited_.contains(n)) continue;
          moves.push_back(std::move(n));
          owner.push_back(w);
        }
      }
      if (moves.empty()) break;
      const auto p = model_.predict(moves);
      std::vector<std::size_t> best(walkers.size(), moves.size());
      for (std::size_t i = 0; i < moves.size(); ++i) {
        if (in_pool.insert(moves[i])) {
          pool.push_back(moves[i]);
          predicted.push_back(p[i]);
        }
        const std::size_t w = owner[i];
        if (p[i].mean < walkers[w].second &&
            (best[w] == moves.size() || p[i].mean < p[best[w]].mean)) {
          best[w] = i;
        }
      }
      std::vector<std::pair<Configuration, double>> next;
      for (std::size_t w = 0; w < walkers.size(); ++w) {
        if (best[w] != moves.size()) next.emplace_back(moves[best[w]], p[best[w]].mean);
      }
      walkers = std::move(next);
    }
  }

  // The neighbours (adjacent, then every Hamming move) of the best measured configurations,
  // two-step moves from them, and fresh random points: new and valid, each once.
  std::vector<Configuration> candidates() {
    std::vector<std::size_t> order(history_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return detail::score(history_[a]) < detail::score(history_[b]);
    });
    std::vector<Configuration> pool;
    detail::Visited in_pool;
    const auto add = [&](const Configuration& c) {
      if (pool.size() < options_.pool && !visited_.contains(c) && in_pool.insert(c)) {
        pool.push_back(c);
      }
    };
    const std::size_t parents = std::min(options_.parents, order.size());
    for (std::size_t k = 0; k < parents; ++k) {
      const auto& p = history_[order[k]].configuration;
      if (!history_[order[k]].measurement.ok()) break;
      for (const auto& c : view_->neighbours(p, Neighbourhood::adjacent)) add(c);
    }
    for (std::size_t k = 0; k < parents; ++k) {
      const auto& p = history_[order[k]].configuration;
      for (const auto& c : view_->neighbours(p, Neighbourhood::hamming)) add(c);
    }
    const std::size_t two_step = options_.pool - options_.pool / 4;
    for (std::size_t tries = 0; pool.size() < two_step && tries < 4 * options_.pool && parents > 0;
         ++tries) {
      const auto& p = history_[order[rng_.below(parents)]].configuration;
      auto a = view_->random_neighbour(p, Neighbourhood::hamming, rng_, 16);
      if (!a) continue;
      auto b = view_->random_neighbour(*a, Neighbourhood::adjacent, rng_, 16);
      if (b) add(*b);
    }
    for (std::size_t tries = 0; pool.size() < options_.pool && tries < options_.pool; ++tries) {
      auto c = view_->sample(rng_, 64, 2000);
      if (c && view_->is_valid(*c)) add(*c);
    }
    return pool;
  }

  XGBoostSearchOptions options_;
  std::vector<Configuration> warm_;  // transfer's seeds (warm_start)
  XGBoostModel model_;
  SpaceView view_;
  Rng rng_;
  detail::Visited visited_;
  std::deque<Configuration> queue_;
  std::vector<Trial> history_;
};

static_assert(search_policy<XGBoostSearch>);

}  // namespace aoe

#endif  // AOE_SEARCH_XGBOOST_XGBOOST_SEARCH_HPP
