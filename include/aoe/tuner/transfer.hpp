// Transfer across devices (docs/transfer.md): the configurations a run measures first because
// other devices know the problem, and how far each device is trusted. The same kernel's best
// configurations on other GPUs reach 58.5 to 99.9 % of the optimum on a new one (BAT,
// arXiv 2303.08976); how well a device predicts the others is measured here, on the sources
// themselves, never on the target.
#ifndef AOE_TUNER_TRANSFER_HPP
#define AOE_TUNER_TRANSFER_HPP

#include "aoe/core/error.hpp"
#include "aoe/space/configuration.hpp"
#include "aoe/space/space.hpp"
#include "aoe/vocab/record.hpp"
#include "aoe/vocab/transfer.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace aoe {

/// A repository that can say what other devices know of a key's problem: the sources for
/// `key.problem` on every device but `key.device` (MemoryRepository, TuningDatabase,
/// KnowledgeBank). Optional: `aoe::Tuner` and `aoe::Online` use it when it is there.
template <class R>
concept transfer_repository = requires(const R& r, const TuningKey& key) {
  { r.transfer_sources(key) } -> std::same_as<Result<std::vector<TransferSource>>>;
};

/// A search policy that takes configurations to measure first: `warm_start(seeds)`, called
/// before each `start`, replaces the previous run's and returns true when it takes them (its
/// initial design then starts with them, after its own `initial` option). Optional: a policy
/// without it, or one that returns false, is left alone and the tuner measures the seeds
/// before the policy's first proposal.
template <class S>
concept takes_warm_start = requires(S& s, std::span<const Configuration> seeds) {
  { s.warm_start(seeds) } -> std::convertible_to<bool>;
};

/// The seeds of a run and how each source was weighed.
struct TransferPlan {
  std::vector<Configuration> seeds;
  std::vector<TransferWeight> sources;  ///< by weight, the most trusted first
};

namespace detail {

/// One source's points that are configurations of `space`, by value (best first, each once),
/// and their values by configuration.
struct MappedSource {
  std::string device;
  std::vector<std::pair<Configuration, double>> ranked;
  std::unordered_map<Configuration, double, ConfigurationHash> value_of;
  std::vector<Configuration> top;  ///< its best valid configurations, at most per_source
};

[[nodiscard]] inline MappedSource map_source(const Space& space, const TransferSource& source,
                                             std::size_t per_source) {
  MappedSource m;
  m.device = source.device;
  for (const auto& p : source.points) {
    if (!(p.value > 0) || !std::isfinite(p.value)) continue;
    auto c = space.find(p.configuration);
    if (!c) continue;
    const auto [at, fresh] = m.value_of.emplace(*c, p.value);
    if (!fresh) at->second = std::min(at->second, p.value);
  }
  m.ranked.assign(m.value_of.begin(), m.value_of.end());
  std::sort(m.ranked.begin(), m.ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  for (const auto& [c, v] : m.ranked) {
    if (m.top.size() == per_source) break;
    if (space.is_valid(c)) m.top.push_back(c);
  }
  return m;
}

/// The fraction of `t`'s best that the best of `top` reaches on `t`; 0 when `t` measured none.
[[nodiscard]] inline double predicted_fraction(const std::vector<Configuration>& top,
                                               const MappedSource& t) {
  if (t.ranked.empty()) return 0;
  double best_of_top = HUGE_VAL;
  for (const auto& c : top) {
    if (const auto it = t.value_of.find(c); it != t.value_of.end()) {
      best_of_top = std::min(best_of_top, it->second);
    }
  }
  return std::isfinite(best_of_top) ? t.ranked.front().second / best_of_top : 0;
}

}  // namespace detail

/// The configurations to measure first on `space`, from `sources` (devices other than the
/// target's), and each source's weight. A source's weight is how well its `per_source` best
/// configurations did on the other sources: the mean fraction of their optimum reached (1 when
/// no other source measured them). Sources are taken by weight, the most trusted first; one
/// whose known weight is under `min_weight` times the most trusted one's is left out. The seeds are
/// every used source's best valid configuration (by weight), then each one's second best, and so
/// on, each once, at most `max_seeds`. Deterministic: the same sources give the same seeds in the
/// same order.
[[nodiscard]] inline TransferPlan plan_transfer(const Space& space,
                                                std::span<const TransferSource* const> sources,
                                                const TransferOptions& options) {
  TransferPlan plan;
  if (!options.enabled || options.per_source == 0 || options.max_seeds == 0) return plan;
  std::vector<detail::MappedSource> mapped;
  for (const TransferSource* s : sources) {
    auto m = detail::map_source(space, *s, options.per_source);
    if (!m.top.empty()) mapped.push_back(std::move(m));
  }
  std::vector<std::pair<TransferWeight, std::size_t>> weighed;  // weight, index in mapped
  for (std::size_t s = 0; s < mapped.size(); ++s) {
    TransferWeight w{mapped[s].device};
    double sum = 0;
    for (std::size_t t = 0; t < mapped.size(); ++t) {
      if (t == s) continue;
      const double f = detail::predicted_fraction(mapped[s].top, mapped[t]);
      if (f > 0) {
        sum += f;
        ++w.predicted;
      }
    }
    if (w.predicted > 0) w.weight = sum / static_cast<double>(w.predicted);
    weighed.emplace_back(std::move(w), s);
  }
  double most = 0;
  for (const auto& [w, s] : weighed) most = std::max(most, w.weight);
  for (auto& [w, s] : weighed) w.used = w.predicted == 0 || w.weight >= options.min_weight * most;
  std::stable_sort(weighed.begin(), weighed.end(), [](const auto& a, const auto& b) {
    if (a.first.weight != b.first.weight) return a.first.weight > b.first.weight;
    return a.first.device < b.first.device;
  });
  std::unordered_map<Configuration, bool, ConfigurationHash> taken;
  for (std::size_t rank = 0; rank < options.per_source; ++rank) {
    for (auto& [w, s] : weighed) {
      if (!w.used || rank >= mapped[s].top.size() || plan.seeds.size() == options.max_seeds) {
        continue;
      }
      const Configuration& c = mapped[s].top[rank];
      if (taken.emplace(c, true).second) {
        plan.seeds.push_back(c);
        ++w.seeds;
      }
    }
  }
  for (auto& [w, s] : weighed) plan.sources.push_back(std::move(w));
  return plan;
}

/// `plan_transfer` on sources held by value.
[[nodiscard]] inline TransferPlan plan_transfer(const Space& space,
                                                std::span<const TransferSource> sources,
                                                const TransferOptions& options) {
  std::vector<const TransferSource*> held;
  held.reserve(sources.size());
  for (const auto& s : sources) held.push_back(&s);
  return plan_transfer(space, std::span<const TransferSource* const>(held), options);
}

/// A run's plan, as `aoe::Tuner` and `aoe::Online` make it: `options.seeds` (the valid ones)
/// first, then `plan_transfer` over `options.sources` on other devices than the key's (every
/// one when `key` is null) and `found`, the repository's sources; each configuration once.
/// Nothing when transfer is off.
[[nodiscard]] inline TransferPlan plan_transfer_for(const Space& space, const TuningKey* key,
                                                    const TransferOptions& options,
                                                    std::span<const TransferSource> found) {
  if (!options.enabled) return {};
  std::vector<const TransferSource*> sources;
  for (const auto& s : options.sources) {
    if (key == nullptr || s.device != key->device) sources.push_back(&s);
  }
  for (const auto& s : found) sources.push_back(&s);
  TransferPlan plan =
      plan_transfer(space, std::span<const TransferSource* const>(sources), options);
  if (options.seeds.empty()) return plan;
  std::vector<Configuration> seeds;
  const auto add = [&](const Configuration& c) {
    if (space.is_valid(c) && std::find(seeds.begin(), seeds.end(), c) == seeds.end()) {
      seeds.push_back(c);
    }
  };
  for (const auto& c : options.seeds) add(c);
  for (const auto& c : plan.seeds) add(c);
  plan.seeds = std::move(seeds);
  return plan;
}

}  // namespace aoe

#endif  // AOE_TUNER_TRANSFER_HPP
